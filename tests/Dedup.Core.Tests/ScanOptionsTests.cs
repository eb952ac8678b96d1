using Dedup.Core.Comparison;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Dedup.Core.Topology;
using Xunit;

namespace Dedup.Core.Tests;

/// <summary>
/// <see cref="ScanOptions"/> is the one settings type (#35 step 5): the builder's fluent methods fill it, Configure copies
/// it, Build resolves it; its validator lists every problem at once; Build reads no disk for roots or drive kinds.
/// </summary>
public sealed class ScanOptionsTests
{
    /// <summary>Every setting away from its default, so that a setting lost on the way shows.</summary>
    internal static DuplicateFinderBuilder EverySetting(DuplicateFinderBuilder builder) => builder
        .AddRoot("/srv/a").AddRoot("/srv/b")
        .Include("*.jpg").Exclude("**/.cache/**")
        .WithMinSize(10).WithMaxSize(1000)
        .IncludeHidden(false).IncludeEmptyFiles().FollowSymbolicLinks().StayOnOneFileSystem()
        .UseComparer(ComparerStrategies.Bytewise).UseHashAlgorithm(DuplicateHashAlgorithm.Sha256).TrustHashes()
        .UseFolderMode(ignoreNames: true)
        .WithMaxDegreeOfParallelism(3)
        .WithDriveKind("/srv/a", DriveKind.Hdd);

    internal static void AssertEverySetting(ScanOptions options)
    {
        Assert.Equal(["/srv/a", "/srv/b"], options.Roots);
        Assert.Equal(["*.jpg"], options.Include);
        Assert.Equal(["**/.cache/**"], options.Exclude);
        Assert.Equal(10, options.MinSize);
        Assert.Equal(1000, options.MaxSize);
        Assert.False(options.IncludeHidden);
        Assert.True(options.IncludeEmptyFiles);
        Assert.True(options.FollowSymbolicLinks);
        Assert.True(options.StayOnOneFileSystem);
        Assert.Equal("bytewise", options.Comparer);
        Assert.Equal(DuplicateHashAlgorithm.Sha256, options.HashAlgorithm);
        Assert.True(options.TrustHashes);
        Assert.False(options.MediaMode); // cannot be combined with folder mode: see Media_mode_round_trips
        Assert.True(options.FolderMode);
        Assert.True(options.IgnoreFolderNames);
        Assert.Equal(3, options.MaxDegreeOfParallelism);
        var drive = Assert.Single(options.DriveKinds);
        Assert.Equal(("/srv/a", DriveKind.Hdd), (drive.Path, drive.Kind));
    }

    [Fact]
    public void Every_setting_round_trips_builder_to_options_to_builder_to_finder()
    {
        var first = EverySetting(new DuplicateFinderBuilder());
        AssertEverySetting(first.Options);

        var second = new DuplicateFinderBuilder().Configure(first.Options);
        AssertEverySetting(second.Options);
        Assert.NotSame(first.Options.DriveKinds[0], second.Options.DriveKinds[0]);

        var resolved = second.Build().Options;
        Assert.Equal(["/srv/a", "/srv/b"], resolved.Roots.Select(r => r.ToString()));
        Assert.Equal(["*.jpg"], resolved.Includes.Select(g => g.Text));
        Assert.Equal(["**/.cache/**"], resolved.Excludes.Select(g => g.Text));
        Assert.Equal((10L, 1000L), (resolved.MinSize, resolved.MaxSize));
        Assert.Equal((false, true, true, true), (resolved.IncludeHidden, resolved.IncludeEmptyFiles, resolved.FollowSymbolicLinks, resolved.StayOnOneFileSystem));
        Assert.Same(ComparerStrategies.Bytewise, resolved.Strategy);
        Assert.Equal((DuplicateHashAlgorithm.Sha256, true), (resolved.HashAlgorithm, resolved.TrustHashes));
        Assert.Equal((false, true, true), (resolved.MediaMode, resolved.FolderMode, resolved.IgnoreFolderNames));
        Assert.Equal(3, resolved.MaxDegreeOfParallelism);
        Assert.Equal([("/srv/a", DriveKind.Hdd)], resolved.DriveKinds);
    }

    [Fact]
    public void Media_mode_round_trips()
    {
        var builder = new DuplicateFinderBuilder().AddRoot("/srv").UseMediaMode();

        Assert.True(builder.Options.MediaMode);
        Assert.True(new DuplicateFinderBuilder().Configure(builder.Options).Build().Options.MediaMode);
    }

    [Fact]
    public void The_defaults_are_the_options_defaults()
    {
        var resolved = new DuplicateFinderBuilder().Configure(new ScanOptions { Roots = { "/srv" } }).Build().Options;

        Assert.Equal((0L, long.MaxValue), (resolved.MinSize, resolved.MaxSize));
        Assert.Equal((true, false, false, false), (resolved.IncludeHidden, resolved.IncludeEmptyFiles, resolved.FollowSymbolicLinks, resolved.StayOnOneFileSystem));
        Assert.Same(ComparerStrategies.Hybrid, resolved.Strategy);
        Assert.Equal((DuplicateHashAlgorithm.XxHash128, false, false, false), (resolved.HashAlgorithm, resolved.TrustHashes, resolved.MediaMode, resolved.FolderMode));
        Assert.Equal(Math.Min(32, Math.Max(4, 4 * Environment.ProcessorCount)), resolved.MaxDegreeOfParallelism);
        Assert.Empty(resolved.DriveKinds);
    }

    [Fact]
    public void A_comparer_of_your_own_is_a_service_and_a_configured_name_replaces_it()
    {
        var mine = new NamedStrategy("mine");
        var builder = new DuplicateFinderBuilder().AddRoot("/srv").UseComparer(mine);

        Assert.Equal("hybrid", builder.Options.Comparer); // not a setting: nothing to bind
        Assert.Same(mine, builder.Build().Strategy);
        Assert.Same(ComparerStrategies.Vectorized, builder.Configure(new ScanOptions { Comparer = "vectorized" }).Build().Strategy);
    }

    [Fact]
    public void The_validator_returns_every_problem_at_once_each_naming_its_setting()
    {
        var options = new ScanOptions
        {
            MinSize = -1,
            MaxDegreeOfParallelism = 0,
            Comparer = "fastest",
            HashAlgorithm = DuplicateHashAlgorithm.XxHash3,
            TrustHashes = true,
            FolderMode = true,
            MediaMode = true,
            Exclude = { "a[b" },
            DriveKinds = { new DriveKindSetting("", (DriveKind)42) },
        };

        var problems = options.Validate();

        Assert.Equal(
            [
                "Roots is empty",
                "Exclude[0] is 'a[b'",
                "MinSize is -1",
                "MaxDegreeOfParallelism is 0",
                "Comparer is 'fastest'",
                "TrustHashes is set with HashAlgorithm XxHash3",
                "FolderMode and MediaMode are both set",
                "DriveKinds[0].Path is empty",
                "DriveKinds[0].Kind is 42",
            ],
            problems.Select(p => p[..p.IndexOf(':', StringComparison.Ordinal)]));

        var builder = new DuplicateFinderBuilder();
        builder.Options.CopyFrom(options); // Configure would refuse the comparer name at once, as UseComparer does
        var error = Assert.Throws<ArgumentException>(builder.Build);
        Assert.All(problems, p => Assert.Contains(p, error.Message, StringComparison.Ordinal));
        Assert.Contains("9 problems", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Settings_without_a_value_are_named()
    {
        var options = new ScanOptions { Roots = { null! }, Include = { "*.a", null! }, Comparer = null!, DriveKinds = { null! } };

        Assert.Equal(
            ["Roots[0] has no value.", "Include[1] has no value.", "Comparer has no value.", "DriveKinds[0] has no value."],
            options.Validate());
    }

    [Fact]
    public void Valid_settings_have_no_problems()
    {
        Assert.Empty(EverySetting(new DuplicateFinderBuilder()).Options.Validate());
        Assert.Empty(new ScanOptions { Roots = { "relative/root" }, MaxSize = 0, MaxDegreeOfParallelism = 1024 }.Validate());
    }

    [LinuxFact]
    public async Task Build_with_a_missing_root_and_a_drive_kind_for_a_missing_path_touches_nothing_and_the_scan_looks_them_up()
    {
        using var tree = new TempTree();
        var missing = tree.PathOf("not-mounted-yet");

        // A service builds its finder before its disk is there: no exception, nothing created.
        var finder = new DuplicateFinderBuilder().AddRoot(missing).UseDriveTopology(new UnknownDrives())
            .WithDriveKind(Path.Combine(missing, "disk"), DriveKind.Hdd).Build();
        Assert.False(Path.Exists(missing));

        // The scan checks the root first, then the drive kind's path, each failing as a missing root does.
        var root = await Assert.ThrowsAsync<DirectoryNotFoundException>(() => Scan.RunAsync(finder));
        Assert.Contains("does not exist (is its disk mounted?)", root.Message, StringComparison.Ordinal);
        Directory.CreateDirectory(missing);
        var scan = finder.FindAsync();
        var drive = await Assert.ThrowsAsync<DirectoryNotFoundException>(async () =>
        {
            await foreach (var group in scan)
            {
                Assert.Fail($"No group may come before the drive kinds are known: {group}");
            }
        });
        Assert.Contains($"'{Path.Combine(missing, "disk")}' given for a drive kind does not exist", drive.Message, StringComparison.Ordinal);
        Assert.True(scan.IsCompleted);
        Assert.Equal(0, scan.Summary.FilesScanned);

        // Once it is there, the same finder scans, with the declared kind for its device.
        Directory.CreateDirectory(Path.Combine(missing, "disk"));
        File.WriteAllText(Path.Combine(missing, "a"), "same");
        File.WriteAllText(Path.Combine(missing, "b"), "same");
        var (groups, _) = await Scan.RunAsync(finder);
        Assert.Single(groups);
        var context = new ScanContext(finder.Options, new ScanErrorSink());
        Assert.Equal(DriveKind.Unknown, context.Drives.Topology.GetDevice(TestNative.Device(missing)).Kind);
        context.CaptureDrives();
        Assert.Equal(DriveKind.Hdd, context.Drives.Topology.GetDevice(TestNative.Device(missing)).Kind);
    }

    [Fact]
    public void Build_keeps_the_resolved_settings_apart_from_later_changes()
    {
        var builder = new DuplicateFinderBuilder().AddRoot("/srv").WithDriveKind("/srv", DriveKind.Ssd);
        var finder = builder.Build();

        builder.Options.Roots.Add("/other");
        builder.Options.DriveKinds[0].Kind = DriveKind.Hdd;

        Assert.Equal(["/srv"], finder.Roots);
        Assert.Equal([("/srv", DriveKind.Ssd)], finder.Options.DriveKinds);
    }

    private sealed class UnknownDrives : IDriveTopology
    {
        public StorageDevice GetDevice(ulong deviceId) => new(deviceId, "test", DriveKind.Unknown);
    }

    private sealed class NamedStrategy(string name) : IComparerStrategy
    {
        public string Name => name;

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default) =>
            ComparerStrategies.Bytewise.Partition(set, cancellationToken);
    }
}
