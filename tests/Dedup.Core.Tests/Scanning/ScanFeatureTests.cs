using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Scanning.Features;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// The scan-feature contract (<see cref="ScanFeature"/>) as the scanner calls it: each phase once and in order, the
/// groups a feature finishes with after the stage's own, its changes to a settled group's files published, and only a
/// completed compare stage reported to it as compared.
/// </summary>
public sealed class ScanFeatureTests
{
    [Fact]
    public async Task A_feature_sees_every_phase_once_in_order_and_its_groups_follow_the_stages()
    {
        using var tree = new TempTree();
        tree.Write("a", "same bytes");
        tree.Write("b", "same bytes");
        tree.Write("c", "a unique size");
        var options = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().Options;
        var extra = new DuplicateGroup(1, [File(tree, "x"), File(tree, "y")], verifiedByBytes: false);
        var feature = new Recorder(extra);
        var run = new ScanRun(options, new WholeFileScan(), [feature]);

        var groups = new List<DuplicateGroup>();
        await foreach (var group in DuplicateScanner.ScanAsync(run, CancellationToken.None))
        {
            groups.Add(group);
        }

        Assert.Equal(["started", "listed 3", "settled a|b", "compared", "finished", "disposed"], feature.Calls);
        Assert.Equal(2, groups.Count);
        Assert.Equal([tree.PathOf("a"), tree.PathOf("b")], groups[0].Files.Select(f => f.Path.ToString()));
        Assert.All(groups[0].Files, f => Assert.Equal("seen", f.Machine)); // the feature's replacements are what is published
        Assert.Same(extra, groups[1]);
        Assert.Equal(run.Context.Roots, groups[0].Roots);
        Assert.Single(groups[0].Roots);
        Assert.Equal(2, run.Summary!.Groups);
        Assert.Equal(2, run.Summary.DuplicateFiles);
        Assert.Equal(["from the feature"], run.Summary.Cache!.Warnings);
    }

    [Fact]
    public async Task A_cancelled_scan_disposes_its_features_without_reporting_them_compared()
    {
        using var tree = new TempTree();
        tree.Write("a", "same bytes");
        tree.Write("b", "same bytes");
        var options = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().Options;
        using var cts = new CancellationTokenSource();
        var feature = new Recorder(extra: null, onListed: cts.Cancel);
        var run = new ScanRun(options, new WholeFileScan(), [feature]);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
        {
            await foreach (var group in DuplicateScanner.ScanAsync(run, cts.Token))
            {
            }
        });

        Assert.Equal(["started", "listed 2"], feature.Calls.Take(2));
        Assert.DoesNotContain("compared", feature.Calls);
        Assert.Equal("disposed", feature.Calls[^1]);
        Assert.Single(feature.Calls, "disposed");
        Assert.Equal(["from the feature"], run.Summary!.Cache!.Warnings); // a cancelled scan's summary has its statistics too
    }

    [Fact]
    public void Two_features_cannot_both_settle_whole_file_sets()
    {
        var options = new DuplicateFinderBuilder().AddRoot(Path.GetTempPath()).Build().Options;
        var error = Assert.Throws<InvalidOperationException>(() => new ScanRun(options, new WholeFileScan(), [new Settling(), new Settling()]));
        Assert.Contains(nameof(IWholeFileSettler), error.Message, StringComparison.Ordinal);
        var only = new Settling();
        Assert.Same(only, new ScanRun(options, new WholeFileScan(), [new Recorder(null), only]).Context.Settler);
        Assert.Same(only, new ScanRun(options, new WholeFileScan(), [only, new Recorder(null)]).Context.Settler);
    }

    [Fact]
    public void Neither_the_cache_nor_the_catalog_lets_the_listing_key_small_files()
    {
        // The sessions are not needed for the declarations.
        Assert.False(new Core.Caching.CacheFeature(null!).AllowsListingKeys); // its point is not to read unchanged files
        Assert.False(new Core.Catalog.CatalogFeature(null!).AllowsListingKeys); // it hashes what the compare stage reads
    }

    [Fact]
    public void Content_digests_are_kept_once_opened_and_taken_once()
    {
        var digests = new ContentDigests();
        var file = new FileNode(new ScannedFile(Core.Paths.AbsolutePath.Parse(Path.Combine(Path.GetTempPath(), "x")), 1, new FileIdentity(1, 2), 1, DateTime.UnixEpoch));
        var first = new Core.Comparison.Hashing.ContentHash(1, 2, 3, 4);
        var second = new Core.Comparison.Hashing.ContentHash(5, 6, 7, 8);

        digests.Note(file, first);
        Assert.False(digests.TryTake(file, out _)); // not open: nothing kept

        digests.Open();
        digests.Note(file, first);
        digests.Note(file, second); // hashed again: the later digest stands
        Assert.True(digests.TryTake(file, out var taken));
        Assert.Equal(second, taken);
        Assert.False(digests.TryTake(file, out taken));
        Assert.Equal(default, taken);
    }

    [LinuxFact]
    public void Small_files_are_keyed_while_listed_only_when_every_feature_allows_it()
    {
        using var tree = new TempTree();
        var options = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().Options;
        Assert.True(Keys(new Recorder(null)));
        Assert.False(Keys(new Recorder(null), new NoListingKeys()));

        bool Keys(params ScanFeature[] features)
        {
            var run = new ScanRun(options, new WholeFileScan(), features);
            run.Context.CaptureRoots();
            return DuplicateScanner.KeysWhileListing(run);
        }
    }

    private static DuplicateFile File(TempTree tree, string name) =>
        new(Core.Paths.AbsolutePath.Parse(tree.PathOf(name)), [], new FileIdentity(1, (ulong)name[0]), 1, 1, DateTime.UnixEpoch) { Machine = "elsewhere" };

    /// <summary>Records each phase it is called at; names the files of each settled group "seen".</summary>
    private sealed class Recorder(DuplicateGroup? extra, Action? onListed = null) : ScanFeature
    {
        public List<string> Calls { get; } = [];

        public override void Started(ScanContext context, CancellationToken cancellationToken) => Record("started");

        public override Task ListedAsync(ScanContext context, FileTable table, CancellationToken cancellationToken)
        {
            Record($"listed {table.Count}");
            onListed?.Invoke();
            return Task.CompletedTask;
        }

        public override Task<IEnumerable<DuplicateGroup>>? FinishAsync(ScanContext context, ScanThreads threads, Task compare, CancellationToken cancellationToken)
            => extra is null ? null : FinishAfterAsync(compare);

        public override void Settled(List<DuplicateFile> files)
        {
            Record("settled " + string.Join("|", files.Select(f => f.Path.Name)));
            for (var i = 0; i < files.Count; i++)
            {
                files[i] = files[i] with { Machine = "seen" };
            }
        }

        public override void Compared(CancellationToken cancellationToken) => Record("compared");

        public override ScanSummary AddStatistics(ScanSummary summary) => summary with { Cache = new Core.Reporting.CacheStatistics { Warnings = ["from the feature"] } };

        public override void Dispose() => Record("disposed");

        private async Task<IEnumerable<DuplicateGroup>> FinishAfterAsync(Task compare)
        {
            await compare.ConfigureAwait(false);
            Record("finished");
            return [extra!];
        }

        private void Record(string call)
        {
            lock (Calls)
            {
                Calls.Add(call);
            }
        }
    }

    /// <summary>Needs the compare stage to read every candidate.</summary>
    private sealed class NoListingKeys : ScanFeature
    {
        public override bool AllowsListingKeys => false;
    }

    /// <summary>Declares a settler that settles nothing.</summary>
    private sealed class Settling : ScanFeature, IWholeFileSettler
    {
        public override IWholeFileSettler Settler => this;

        public List<SettledGroup>? TrySettle(
            WholeFileStage stage, List<FileNode> files, long size, ReaderFanOut readers, bool rotational, Func<IDisposable> enterDevices, CancellationToken cancellationToken)
            => null;
    }
}
