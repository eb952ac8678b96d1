using Dedup.Core.Comparison;
using Dedup.Core.Diagnostics;
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

    /// <summary>One bad setting: its problem text, and Build's exception as the builder always threw it.</summary>
    public static TheoryData<string> SingleProblems => new(SingleProblemCases.Keys);

    private static readonly Dictionary<string, (Action<ScanOptions> Spoil, Type Type, string? Parameter, string Message, string Problem)> SingleProblemCases = new()
    {
        ["no roots"] = (o => o.Roots.Clear(), typeof(InvalidOperationException), null, "Add at least one folder to scan with AddRoot before calling Build.", "Roots is empty: add at least one folder to scan."),
        ["blank root"] = (o => o.Roots[0] = "  ", typeof(ArgumentException), null, "A root path must not be empty.", "Roots[0] is empty: a root path must not be empty."),
        ["NUL root"] = (o => o.Roots[0] = "a\0b", typeof(ArgumentException), null, $"The root path '{Core.Paths.PathText.Escape("a\0b")}' contains a NUL character.", $"Roots[0] is '{Core.Paths.PathText.Escape("a\0b")}': it contains a NUL character."),
        ["bad include"] = (o => o.Include.Add("["), typeof(ArgumentException), "text", "The glob pattern '[' has an unclosed '[' at position 0.", "Include[0] is '[': The glob pattern '[' has an unclosed '[' at position 0."),
        ["empty exclude"] = (o => o.Exclude.Add(" "), typeof(ArgumentException), "text", "A glob pattern must not be empty.", "Exclude[0] is ' ': A glob pattern must not be empty."),
        ["negative min"] = (o => o.MinSize = -1, typeof(ArgumentOutOfRangeException), "minSize", "The minimum size must not be negative.", "MinSize is -1: the minimum size must not be negative."),
        ["max below min"] = (o => (o.MinSize, o.MaxSize) = (10, 5), typeof(ArgumentOutOfRangeException), "maxSize", "The maximum size (5) is smaller than the minimum size (10).", "MaxSize is 5: it is smaller than MinSize (10)."),
        ["parallelism"] = (o => o.MaxDegreeOfParallelism = 2000, typeof(ArgumentOutOfRangeException), "maxDegreeOfParallelism", "The degree of parallelism must be at least 1 and at most 1024.", "MaxDegreeOfParallelism is 2000: the degree of parallelism must be at least 1 and at most 1024."),
        ["comparer"] = (o => o.Comparer = "x", typeof(ArgumentException), "name", "Unknown comparer strategy 'x'; expected hybrid, hash, vectorized or bytewise.", "Comparer is 'x': expected hybrid, hash, vectorized or bytewise."),
        ["no comparer"] = (o => o.Comparer = null!, typeof(ArgumentException), null, "Comparer has no value.", "Comparer has no value."),
        ["hash"] = (o => o.HashAlgorithm = (DuplicateHashAlgorithm)99, typeof(ArgumentOutOfRangeException), "hashAlgorithm", "Unknown hash algorithm.", "HashAlgorithm is 99: unknown hash algorithm."),
        ["trust xxh3"] = (o => (o.TrustHashes, o.HashAlgorithm) = (true, DuplicateHashAlgorithm.XxHash3), typeof(ArgumentException), null, "TrustHashes needs a hash of at least 128 bits: use XxHash128 or Sha256, not the 64-bit XxHash3.", "TrustHashes is set with HashAlgorithm XxHash3: trusting hashes needs at least 128 bits (XxHash128 or Sha256)."),
        ["folders and media"] = (o => (o.FolderMode, o.MediaMode) = (true, true), typeof(ArgumentException), null, "Folder mode and media mode cannot be combined: folders are compared by whole-file contents.", "FolderMode and MediaMode are both set: they cannot be combined, folders are compared by whole-file contents."),
        ["drive path"] = (o => o.DriveKinds.Add(new DriveKindSetting(" ", DriveKind.Hdd)), typeof(ArgumentException), "path", "A drive kind's path must not be empty.", "DriveKinds[0].Path is empty: name a path on the device."),
        ["NUL drive path"] = (o => o.DriveKinds.Add(new DriveKindSetting("a\0", DriveKind.Hdd)), typeof(ArgumentException), "path", $"The drive kind path '{Core.Paths.PathText.Escape("a\0")}' contains a NUL character.", $"DriveKinds[0].Path is '{Core.Paths.PathText.Escape("a\0")}': it contains a NUL character."),
        ["drive kind"] = (o => o.DriveKinds.Add(new DriveKindSetting("/srv", (DriveKind)9)), typeof(ArgumentOutOfRangeException), "kind", "Unknown drive kind.", "DriveKinds[0].Kind is 9: unknown drive kind."),
        ["no drive"] = (o => o.DriveKinds.Add(null!), typeof(ArgumentException), null, "DriveKinds[0] has no value.", "DriveKinds[0] has no value."),
    };

    [Theory]
    [MemberData(nameof(SingleProblems))]
    public void A_single_bad_setting_is_one_problem_and_throws_as_the_builder_always_did(string name)
    {
        var (spoil, type, parameter, message, problem) = SingleProblemCases[name];
        var builder = new DuplicateFinderBuilder().AddRoot("/srv");
        spoil(builder.Options);

        Assert.Equal([problem], builder.Options.Validate());
        var error = Assert.Throws(type, builder.Build);
        Assert.Equal(parameter, (error as ArgumentException)?.ParamName);
        Assert.StartsWith(message, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Several_problems_are_one_exception_listing_them_in_order()
    {
        var error = Assert.Throws<ArgumentException>(new DuplicateFinderBuilder().WithMinSize(-1).WithMaxDegreeOfParallelism(0).Build);

        Assert.Equal(
            string.Join(
                Environment.NewLine,
                "The scan settings have 3 problems:",
                "- Roots is empty: add at least one folder to scan.",
                "- MinSize is -1: the minimum size must not be negative.",
                "- MaxDegreeOfParallelism is 0: the degree of parallelism must be at least 1 and at most 1024."),
            error.Message);
    }

    [Fact]
    public void Folder_mode_with_an_enumerator_of_your_own_is_refused_by_Build_naming_it_and_why()
    {
        var builder = new DuplicateFinderBuilder().AddRoot("/srv").UseFolderMode().UseFileEnumerator(new NoFiles());
        const string Reason = "needs the built-in file enumerator, not Dedup.Core.Tests.ScanOptionsTests+NoFiles: it compares whole folders, so it lists "
            + "every entry of each, empty folders and links too; a file list may leave some out, and a folder would be reported equal to another without them.";

        Assert.Empty(builder.Options.Validate()); // the options alone are fine: the enumerator is a service
        var error = Assert.Throws<ArgumentException>(builder.Build);
        Assert.Equal("Folder mode " + Reason, error.Message);
        Assert.Equal(
            "The scan settings have 2 problems:" + Environment.NewLine + "- MinSize is -1: the minimum size must not be negative." + Environment.NewLine
                + "- FolderMode " + Reason,
            Assert.Throws<ArgumentException>(builder.WithMinSize(-1).Build).Message);
    }

    [Fact]
    public void Configure_keeps_the_builders_limits_where_the_options_leave_them_unset()
    {
        var kept = new DuplicateFinderBuilder().WithMaxSize(5).WithMaxDegreeOfParallelism(7).Configure(new ScanOptions()).Options;
        var replaced = new DuplicateFinderBuilder().WithMaxSize(5).WithMaxDegreeOfParallelism(7)
            .Configure(new ScanOptions { MaxSize = 6, MaxDegreeOfParallelism = 8, DriveKinds = { null! } }).Options;

        Assert.Equal((5L, 7), (kept.MaxSize, kept.MaxDegreeOfParallelism));
        Assert.Equal((6L, 8), (replaced.MaxSize, replaced.MaxDegreeOfParallelism));
        Assert.Equal(["Roots is empty: add at least one folder to scan.", "DriveKinds[0] has no value."], replaced.Validate());
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

    private sealed class NoFiles : Enumeration.IFileEnumerator
    {
        public async IAsyncEnumerable<Enumeration.ScannedFile> EnumerateAsync(Enumeration.FileEnumerationContext context, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            await Task.CompletedTask;
            yield break;
        }
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
