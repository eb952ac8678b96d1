using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Dedup.Core.ExternalTests;

/// <summary>Several finders in one host, each by its name; a finder registered twice or a misspelt key is an error, not a silent merge.</summary>
public sealed class NamedFinderTests
{
    private static TempFolder Pair(string name, int seed)
    {
        var tree = new TempFolder();
        tree.Write($"{name}-a.bin", TempFolder.RandomBytes(4096, seed));
        tree.Write($"{name}-b.bin", TempFolder.RandomBytes(4096, seed));
        return tree;
    }

    [Fact]
    public async Task Named_finders_are_keyed_services_each_with_its_own_settings()
    {
        using var photos = Pair("photo", 1);
        using var music = Pair("song", 2);
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Photos:Roots:0"] = photos.Root,
            ["Music:Roots:0"] = music.Root,
            ["Music:Comparer"] = "bytewise",
        });
        builder.Services.AddDedup("photos", builder.Configuration.GetSection("Photos"));
        builder.Services.AddDedup("music", builder.Configuration.GetSection("Music"));
        builder.Services.AddDedup(o => o.Roots.Add(photos.Root), (b, _) => b.WithMinSize(5000));
        using var host = builder.Build();
        await host.StartAsync();

        var photoFinder = host.Services.GetRequiredKeyedService<DuplicateFinder>("photos");
        var musicFinder = host.Services.GetRequiredKeyedService<DuplicateFinder>("music");
        var unnamed = host.Services.GetRequiredService<DuplicateFinder>();

        Assert.Equal(["photo-a.bin | photo-b.bin"], Scans.Canonical((await Scans.RunAsync(photoFinder)).Groups, photos.Root));
        Assert.Equal(["song-a.bin | song-b.bin"], Scans.Canonical((await Scans.RunAsync(musicFinder)).Groups, music.Root));
        Assert.Empty((await Scans.RunAsync(unnamed)).Groups); // its own callback's 5000-byte minimum, not the others'
        Assert.Equal("bytewise", musicFinder.Strategy.Name);
        Assert.NotEqual("bytewise", photoFinder.Strategy.Name);
        Assert.Same(photoFinder, host.Services.GetRequiredKeyedService<DuplicateFinder>("photos"));
        await host.StopAsync();
    }

    [Fact]
    public async Task A_named_finders_bad_settings_stop_the_host_naming_the_finder()
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddDedup("photos", o => o.MinSize = -1);
        using var host = builder.Build();

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Equal("photos", error.OptionsName);
        Assert.Contains("ScanOptions.MinSize is -1", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_same_finder_registered_twice_is_refused()
    {
        var services = new ServiceCollection();
        services.AddDedup(o => o.Roots.Add("/a"));
        services.AddDedup("photos", o => o.Roots.Add("/b"));

        var unnamed = Assert.Throws<InvalidOperationException>(() => services.AddDedup(o => o.Roots.Add("/c")));
        var named = Assert.Throws<InvalidOperationException>(() => services.AddDedup("photos", o => o.Roots.Add("/d")));
        services.AddDedup("music", o => o.Roots.Add("/e"));

        Assert.Equal("AddDedup was called twice for the application's finder; configure it in one call, or name a second finder: AddDedup(\"name\", ...).", unnamed.Message);
        Assert.Equal("AddDedup was called twice for the finder 'photos'; configure it in one call, or give the second finder another name.", named.Message);
        Assert.Throws<ArgumentException>(() => services.AddDedup("", o => o.Roots.Add("/f")));
        Assert.Throws<ArgumentNullException>(() => services.AddDedup((string)null!, o => o.Roots.Add("/f")));
    }

    [Theory]
    [InlineData("Rots:0", "Dedup.Core.ScanOptions: 'Rots'")]
    [InlineData("DriveKinds:0:Knd", "'Knd'")]
    public async Task A_misspelt_configuration_key_stops_the_host_at_start_naming_it(string key, string expected)
    {
        using var tree = new TempFolder();
        using var host = TestHosts.FromConfiguration(new Dictionary<string, string?>
        {
            ["Roots:0"] = tree.Root,
            ["DriveKinds:0:Path"] = tree.Root,
            ["DriveKinds:0:Kind"] = "Ssd",
            [key] = "x",
        });

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());

        Assert.Contains(expected, error.ToString(), StringComparison.Ordinal); // a list item's key is named by the inner exception
    }
}
