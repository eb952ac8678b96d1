using Dedup.Core.Caching;
using Dedup.Core.Caching.Sqlite;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Dedup.Core.ExternalTests;

/// <summary>
/// A finder's <c>Cache</c> section (#36 finding 8): with <c>AddDedupCache</c> it opens the host's cache store (SQLite
/// here, a real file), and without it the section stops the host at start, naming the call that is missing.
/// </summary>
public sealed class CacheConfigurationTests
{
    private static TempFolder Pair()
    {
        var tree = new TempFolder();
        tree.Write("a.bin", TempFolder.RandomBytes(6000, 3));
        tree.Write("b.bin", TempFolder.RandomBytes(6000, 3));
        return tree;
    }

    /// <summary>A host whose configuration holds <paramref name="settings"/> under "<paramref name="section"/>:".</summary>
    private static IHost HostFor(string? name, Dictionary<string, string?> settings, bool withCacheStore)
    {
        var section = name ?? "Dedup";
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(settings.Select(p => new KeyValuePair<string, string?>(section + ":" + p.Key, p.Value)));
        if (name is null)
        {
            builder.Services.AddDedup(builder.Configuration.GetSection(section));
        }
        else
        {
            builder.Services.AddDedup(name, builder.Configuration.GetSection(section));
        }

        if (withCacheStore)
        {
            builder.Services.AddDedupCache(path => new SqliteHashCache(path));
        }

        return builder.Build();
    }

    [Theory]
    [InlineData(null)]
    [InlineData("photos")]
    public async Task A_cache_section_gives_the_finder_its_sqlite_file_and_a_rescan_reads_from_it(string? name)
    {
        using var tree = Pair();
        using var state = new TempFolder();
        var cachePath = Path.Combine(state.Root, "dedup.db");
        await Task.Delay(TimeSpan.FromMilliseconds(1200)); // the cache keeps no file changed within a second of the scan
        using var host = HostFor(name, new() { ["Roots:0"] = tree.Root, ["Cache:Path"] = cachePath, ["Cache:Required"] = "true" }, withCacheStore: true);
        await host.StartAsync();
        var finder = name is null ? host.Services.GetRequiredService<DuplicateFinder>() : host.Services.GetRequiredKeyedService<DuplicateFinder>(name);

        var first = await Scans.RunAsync(finder);
        var second = await Scans.RunAsync(finder);

        Assert.True(File.Exists(cachePath), "the cache file was not written");
        Assert.Equal(["a.bin | b.bin"], Scans.Canonical(second.Groups, tree.Root));
        Assert.True(first.Summary.Cache!.Written > 0, "the first scan cached nothing");
        Assert.True(second.Summary.Cache!.Hits > 0, "the rescan did not use the cache");
        Assert.Equal(0, second.Summary.Cache.Misses);
        Assert.Equal(0, second.Summary.BytesRead);
        await host.StopAsync();
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Cache_Required_decides_whether_an_unusable_cache_fails_the_scan(bool required)
    {
        using var tree = Pair();
        using var state = new TempFolder();
        var cachePath = state.Write("not-a-database.db", new string('x', 8192)); // another program's file
        using var host = HostFor(null, new() { ["Roots:0"] = tree.Root, ["Cache:Path"] = cachePath, ["Cache:Required"] = required.ToString() }, withCacheStore: true);
        await host.StartAsync();
        var finder = host.Services.GetRequiredService<DuplicateFinder>();

        if (required)
        {
            await Assert.ThrowsAsync<HashCacheException>(() => Scans.RunAsync(finder));
        }
        else
        {
            var (groups, summary) = await Scans.RunAsync(finder);
            Assert.Equal(["a.bin | b.bin"], Scans.Canonical(groups, tree.Root));
            Assert.Contains(summary.Cache!.Warnings, w => w.Contains(cachePath, StringComparison.Ordinal));
        }

        await host.StopAsync();
    }

    [Fact]
    public async Task A_cache_section_without_a_cache_store_stops_the_host_naming_the_missing_call()
    {
        using var tree = Pair();
        using var host = HostFor(null, new() { ["Roots:0"] = tree.Root, ["Cache:Path"] = "/var/lib/app/dedup.db" }, withCacheStore: false);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());

        Assert.Equal(
            "'Dedup:Cache' is set, but no cache store is registered: reference the Dedup.Core.Sqlite package and call services.AddDedupCache(path => new SqliteHashCache(path)).",
            error.Message);
    }

    [Fact]
    public async Task A_misspelt_cache_key_stops_the_host_at_start_naming_it()
    {
        using var tree = Pair();
        using var host = HostFor(null, new() { ["Roots:0"] = tree.Root, ["Cache:Pth"] = "/var/lib/app/dedup.db" }, withCacheStore: true);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());

        Assert.Contains("CacheSettings: 'Pth'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_cache_section_without_a_path_stops_the_host_at_start()
    {
        using var tree = Pair();
        using var host = HostFor("photos", new() { ["Roots:0"] = tree.Root, ["Cache:Required"] = "true" }, withCacheStore: true);

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Equal("photos", error.OptionsName);
        Assert.Equal(["photos:Cache:Path is empty: the cache needs a file."], error.Failures);
    }

    [Fact]
    public void The_cache_store_is_registered_once()
    {
        var services = new ServiceCollection();
        services.AddDedupCache(path => new SqliteHashCache(path));

        var error = Assert.Throws<InvalidOperationException>(() => services.AddDedupCache(path => new SqliteHashCache(path)));

        Assert.Equal("AddDedupCache was called twice; one cache store serves every finder's Cache section.", error.Message);
        Assert.Equal("services", Assert.Throws<ArgumentNullException>(() => ((IServiceCollection)null!).AddDedupCache(path => new SqliteHashCache(path))).ParamName);
        Assert.Equal("open", Assert.Throws<ArgumentNullException>(() => new ServiceCollection().AddDedupCache(null!)).ParamName);
    }

    [Fact]
    public async Task A_cache_store_that_returns_no_cache_is_named_when_the_finder_is_resolved()
    {
        using var tree = Pair();
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection([new("Dedup:Roots:0", tree.Root), new("Dedup:Cache:Path", "/var/lib/app/dedup.db")]);
        builder.Services.AddDedup(builder.Configuration.GetSection("Dedup")).AddDedupCache(_ => null!);
        using var host = builder.Build();
        await host.StartAsync();

        var error = Assert.Throws<InvalidOperationException>(() => host.Services.GetRequiredService<DuplicateFinder>());

        Assert.Equal("The cache store given to AddDedupCache returned null for 'Dedup:Cache:Path'.", error.Message);
    }
}
