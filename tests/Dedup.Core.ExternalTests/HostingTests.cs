using Dedup.Core.Comparison;
using Dedup.Core.Reporting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Dedup.Core.ExternalTests;

/// <summary>Dedup.Core.Extensions.DependencyInjection in a real host: binding, start-up validation, roots, logging, callbacks.</summary>
public sealed class HostingTests
{
    /// <summary>Three pairs of duplicates: small (100 B), big (10 KB) and big under cache/.</summary>
    private static TempFolder ThreePairs()
    {
        var tree = new TempFolder();
        tree.Write("small/a.txt", TempFolder.RandomBytes(100, 1));
        tree.Write("small/b.txt", TempFolder.RandomBytes(100, 1));
        tree.Write("big/a.bin", TempFolder.RandomBytes(10_000, 2));
        tree.Write("big/b.bin", TempFolder.RandomBytes(10_000, 2));
        tree.Write("cache/a.bin", TempFolder.RandomBytes(20_000, 3));
        tree.Write("cache/b.bin", TempFolder.RandomBytes(20_000, 3));
        return tree;
    }

    [Fact]
    public async Task Settings_bound_from_configuration_decide_what_the_finder_reports()
    {
        using var tree = ThreePairs();
        using var plain = TestHosts.FromConfiguration(new Dictionary<string, string?> { ["Roots:0"] = tree.Root });
        using var filtered = TestHosts.FromConfiguration(new Dictionary<string, string?>
        {
            ["Roots:0"] = tree.Root,
            ["MinSize"] = "1000",
            ["Exclude:0"] = "cache/**",
            ["Comparer"] = "bytewise",
            ["MaxDegreeOfParallelism"] = "2",
        });
        await plain.StartAsync();
        await filtered.StartAsync();

        var all = await Scans.RunAsync(plain.Services.GetRequiredService<DuplicateFinder>());
        var finder = filtered.Services.GetRequiredService<DuplicateFinder>();
        var some = await Scans.RunAsync(finder);

        Assert.Equal(["big/a.bin | big/b.bin", "cache/a.bin | cache/b.bin", "small/a.txt | small/b.txt"], Scans.Canonical(all.Groups, tree.Root));
        Assert.Equal(["big/a.bin | big/b.bin"], Scans.Canonical(some.Groups, tree.Root));
        Assert.Equal([tree.Root], finder.Roots);
        Assert.Equal("bytewise", finder.Strategy.Name);
        await filtered.StopAsync();
        await plain.StopAsync();
    }

    [Theory]
    [InlineData("Comparer", "fastest", "ScanOptions.Comparer is 'fastest'")]
    [InlineData("MinSize", "-1", "minimum size must not be negative")]
    [InlineData("MaxDegreeOfParallelism", "0", "parallelism must be at least 1")]
    [InlineData("MaxDegreeOfParallelism", "1025", "parallelism must be at least 1 and at most 1024")]
    [InlineData("Exclude:0", "a[b", "a[b")]
    [InlineData("Roots:0", null, "ScanOptions.Roots[0] has no value")]
    [InlineData("Include:1", null, "ScanOptions.Include[1] has no value")]
    [InlineData(null, null, "ScanOptions.Roots is empty")]
    public async Task Bad_settings_stop_the_host_at_start_naming_the_problem(string? key, string? value, string expected)
    {
        using var tree = new TempFolder();
        var settings = new Dictionary<string, string?>();
        if (key is not null)
        {
            settings["Roots:0"] = tree.Root;
            settings["Include:0"] = "*.bin";
            settings[key] = value;
        }

        using var host = TestHosts.FromConfiguration(settings);

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_host_starts_before_its_root_exists_and_the_same_finder_scans_it_once_it_does()
    {
        using var parent = new TempFolder();
        var root = Path.Combine(parent.Root, "backup-disk");
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddDedup(o => o.Roots.Add(root));
        using var host = builder.Build();
        await host.StartAsync(); // the root is not there: start-up must not care

        var finder = host.Services.GetRequiredService<DuplicateFinder>();
        var missing = await Assert.ThrowsAsync<DirectoryNotFoundException>(() => Scans.RunAsync(finder));
        Assert.Contains(root, missing.Message, StringComparison.Ordinal);
        Assert.Throws<DirectoryNotFoundException>(finder.CheckRoots);

        parent.Write("backup-disk/a.bin", TempFolder.RandomBytes(5000, 7));
        parent.Write("backup-disk/b.bin", TempFolder.RandomBytes(5000, 7));
        var again = host.Services.GetRequiredService<DuplicateFinder>();
        var (groups, summary) = await Scans.RunAsync(again);

        Assert.Same(finder, again);
        Assert.Equal(["a.bin | b.bin"], Scans.Canonical(groups, root));
        Assert.Empty(summary.Errors);
        await host.StopAsync();
    }

    [Fact]
    public async Task The_finder_logs_through_the_hosts_logging()
    {
        using var tree = ThreePairs();
        var logs = new CollectingLoggerProvider();
        using var host = TestHosts.FromConfiguration(new Dictionary<string, string?> { ["Roots:0"] = tree.Root, ["Roots:1"] = tree.Root + "-gone" }, logs);
        await host.StartAsync();
        var finder = host.Services.GetRequiredService<DuplicateFinder>();

        await Assert.ThrowsAsync<DirectoryNotFoundException>(() => Scans.RunAsync(finder));
        Directory.CreateDirectory(tree.Root + "-gone");
        try
        {
            await Scans.RunAsync(finder);
        }
        finally
        {
            Directory.Delete(tree.Root + "-gone");
        }

        var dedup = logs.Entries.Where(e => e.Category == DedupServiceCollectionExtensions.LoggerCategory).ToList();
        var missing = Assert.Single(dedup, e => e.EventId.Id == 105);
        Assert.Equal(LogLevel.Error, missing.Level);
        Assert.Contains(tree.Root + "-gone", missing.Message, StringComparison.Ordinal);
        Assert.Single(dedup, e => e.EventId.Id == 100);
        var completed = Assert.Single(dedup, e => e.EventId.Id == 101);
        Assert.Contains("3 groups", completed.Message, StringComparison.Ordinal);
        await host.StopAsync();
    }

    [LinuxFact]
    public async Task Each_call_reports_progress_and_errors_to_its_own_callbacks()
    {
        using var tree = ThreePairs();
        using var host = TestHosts.FromConfiguration(new Dictionary<string, string?> { ["Roots:0"] = tree.Root, ["FollowSymbolicLinks"] = "true" });
        await host.StartAsync();
        var finder = host.Services.GetRequiredService<DuplicateFinder>();
        var (firstProgress, firstErrors) = (new CollectingProgress<ScanProgress>(), new CollectingProgress<ScanError>());
        var (secondProgress, secondErrors) = (new CollectingProgress<ScanProgress>(), new CollectingProgress<ScanError>());

        await TestHosts.RunAsync(finder, new ScanCallbacks { Progress = firstProgress, Errors = firstErrors });
        var firstCount = firstProgress.Items.Count;
        tree.Write("more/c.bin", TempFolder.RandomBytes(3000, 4));
        Directory.CreateSymbolicLink(Path.Combine(tree.Root, "more", "loop"), tree.Root);
        var second = await TestHosts.RunAsync(finder, new ScanCallbacks { Progress = secondProgress, Errors = secondErrors });

        Assert.Equal(6, firstProgress.Items[^1].FilesScanned);
        Assert.Equal(ScanPhase.Completed, firstProgress.Items[^1].Phase);
        Assert.Equal(firstCount, firstProgress.Items.Count); // nothing of the second run reached the first's sink
        Assert.Empty(firstErrors.Items);
        Assert.Equal(7, secondProgress.Items[^1].FilesScanned);
        var loop = Assert.Single(secondErrors.Items);
        Assert.Equal(ScanErrorKind.SymbolicLinkLoop, loop.Kind);
        Assert.Equal(second.Summary.Errors, secondErrors.Items);
        await host.StopAsync();
    }

    [Fact]
    public async Task The_builder_callback_plugs_in_services_from_the_container()
    {
        using var tree = ThreePairs();
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddSingleton<CountingStrategy>();
        builder.Services.AddDedup(o => o.Roots.Add(tree.Root), (b, services) => b.UseComparer(services.GetRequiredService<CountingStrategy>()));
        using var host = builder.Build();
        await host.StartAsync();

        var (groups, _) = await Scans.RunAsync(host.Services.GetRequiredService<DuplicateFinder>());

        Assert.Equal(3, groups.Count);
        Assert.Equal("counting", host.Services.GetRequiredService<DuplicateFinder>().Strategy.Name);
        Assert.True(host.Services.GetRequiredService<CountingStrategy>().Calls > 0);
        await host.StopAsync();
    }

    /// <summary>The built-in byte comparison, counting how often the scan asked it.</summary>
    private sealed class CountingStrategy : IComparerStrategy
    {
        private int _calls;

        public string Name => "counting";

        public int Calls => Volatile.Read(ref _calls);

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _calls);
            ComparerStrategies.Bytewise.Partition(set, cancellationToken);
        }
    }
}
