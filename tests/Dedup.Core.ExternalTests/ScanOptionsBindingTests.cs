using System.Globalization;
using Dedup.Core.Comparison;
using Dedup.Core.Topology;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Dedup.Core.ExternalTests;

/// <summary>
/// The builder, configuration binding and the DI package fill the same <see cref="ScanOptions"/> (#35 step 5): every
/// setting survives builder → options → configuration → options → builder, and the host lists every bad one at start.
/// </summary>
public sealed class ScanOptionsBindingTests
{
    /// <summary>Every setting away from its default (media mode apart: it excludes folder mode, so it gets its own pass).</summary>
    private static DuplicateFinderBuilder EverySetting(bool media) => new DuplicateFinderBuilder()
        .AddRoot("/srv/a").AddRoot("/srv/b")
        .Include("*.jpg").Include("*.png").Exclude("**/.cache/**").IgnoreGlobCase()
        .WithMinSize(10).WithMaxSize(1000)
        .IncludeHidden(false).IncludeEmptyFiles().FollowSymbolicLinks().StayOnOneFileSystem()
        .UseComparer(ComparerStrategies.Vectorized).UseHashAlgorithm(DuplicateHashAlgorithm.Sha256).TrustHashes()
        .UseMediaMode(media).UseFolderMode(!media, ignoreNames: !media)
        .WithMaxDegreeOfParallelism(3)
        .WithDriveKind("/srv/a", DriveKind.Hdd).WithDriveKind("/srv/b", DriveKind.Network);

    /// <summary>The options as configuration keys, written by hand: what an appsettings.json section holds.</summary>
    private static Dictionary<string, string?> AsConfiguration(ScanOptions options)
    {
        var keys = new Dictionary<string, string?>
        {
            ["IgnoreGlobCase"] = options.IgnoreGlobCase.ToString(),
            ["MinSize"] = options.MinSize.ToString(CultureInfo.InvariantCulture),
            ["MaxSize"] = options.MaxSize?.ToString(CultureInfo.InvariantCulture),
            ["IncludeHidden"] = options.IncludeHidden.ToString(),
            ["IncludeEmptyFiles"] = options.IncludeEmptyFiles.ToString(),
            ["FollowSymbolicLinks"] = options.FollowSymbolicLinks.ToString(),
            ["StayOnOneFileSystem"] = options.StayOnOneFileSystem.ToString(),
            ["Comparer"] = options.Comparer,
            ["HashAlgorithm"] = options.HashAlgorithm.ToString(),
            ["TrustHashes"] = options.TrustHashes.ToString(),
            ["MediaMode"] = options.MediaMode.ToString(),
            ["FolderMode"] = options.FolderMode.ToString(),
            ["IgnoreFolderNames"] = options.IgnoreFolderNames.ToString(),
            ["MaxDegreeOfParallelism"] = options.MaxDegreeOfParallelism?.ToString(CultureInfo.InvariantCulture),
        };
        foreach (var (key, list) in new[] { ("Roots", options.Roots), ("Include", options.Include), ("Exclude", options.Exclude) })
        {
            for (var i = 0; i < list.Count; i++)
            {
                keys[$"{key}:{i}"] = list[i];
            }
        }

        for (var i = 0; i < options.DriveKinds.Count; i++)
        {
            keys[$"DriveKinds:{i}:Path"] = options.DriveKinds[i].Path;
            keys[$"DriveKinds:{i}:Kind"] = options.DriveKinds[i].Kind.ToString();
        }

        return keys;
    }

    private static IHost HostFor(Dictionary<string, string?> settings)
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(settings.Select(p => new KeyValuePair<string, string?>("Dedup:" + p.Key, p.Value)));
        builder.Services.AddDedup(builder.Configuration.GetSection("Dedup"));
        return builder.Build();
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Every_setting_round_trips_builder_options_configuration_and_back(bool media)
    {
        var fromBuilder = EverySetting(media).Options;
        var written = AsConfiguration(fromBuilder);

        // The hand-written keys name every setting: a setting added to ScanOptions must be added here too.
        var settings = typeof(ScanOptions).GetProperties().Select(p => p.Name).Order(StringComparer.Ordinal);
        Assert.Equal(settings, written.Keys.Select(k => k.Split(':')[0]).Distinct().Order(StringComparer.Ordinal));

        using var host = HostFor(written);
        await host.StartAsync();
        var bound = host.Services.GetRequiredService<IOptions<ScanOptions>>().Value;
        var rebuilt = new DuplicateFinderBuilder().Configure(bound).Options;

        Assert.Equal(written, AsConfiguration(bound));
        Assert.Equal(written, AsConfiguration(rebuilt));
        Assert.Empty(bound.Validate());
        Assert.Equal("vectorized", host.Services.GetRequiredService<DuplicateFinder>().Strategy.Name);
        await host.StopAsync();
    }

    [Fact]
    public async Task Bad_settings_stop_the_host_at_start_listing_every_problem()
    {
        using var host = HostFor(new Dictionary<string, string?>
        {
            ["MinSize"] = "-1",
            ["MaxDegreeOfParallelism"] = "0",
            ["Comparer"] = "fastest",
            ["Exclude:0"] = "a[b",
            ["FolderMode"] = "true",
            ["MediaMode"] = "true",
            ["DriveKinds:0:Kind"] = "Hdd",
        });

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Equal(
            [
                "ScanOptions.Roots is empty",
                "ScanOptions.Exclude[0] is 'a[b'",
                "ScanOptions.MinSize is -1",
                "ScanOptions.MaxDegreeOfParallelism is 0",
                "ScanOptions.Comparer is 'fastest'",
                "ScanOptions.FolderMode and MediaMode are both set",
                "ScanOptions.DriveKinds[0].Path is empty",
            ],
            error.Failures.Select(f => f[..f.IndexOf(':', StringComparison.Ordinal)]));
    }

    [Fact]
    public async Task A_host_starts_and_builds_its_finder_before_its_root_and_drive_kind_path_exist()
    {
        using var parent = new TempFolder();
        var root = Path.Combine(parent.Root, "backup-disk");
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddDedup(o =>
        {
            o.Roots.Add(root);
            o.DriveKinds.Add(new DriveKindSetting(root, DriveKind.Hdd));
        });
        using var host = builder.Build();
        await host.StartAsync();

        var finder = host.Services.GetRequiredService<DuplicateFinder>();

        Assert.False(Path.Exists(root));
        parent.Write("backup-disk/a.bin", TempFolder.RandomBytes(5000, 7));
        parent.Write("backup-disk/b.bin", TempFolder.RandomBytes(5000, 7));
        var (groups, summary) = await Scans.RunAsync(finder);
        Assert.Equal(["a.bin | b.bin"], Scans.Canonical(groups, root));
        Assert.Empty(summary.Errors);
        await host.StopAsync();
    }
}
