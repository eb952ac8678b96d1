using Dedup.Core.Diagnostics;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.Tests.Hosting;

/// <summary>What a service embedding the library sees while a scan runs: errors live, per-call sinks, logs.</summary>
public sealed class ScanCallbackTests
{
    /// <summary>A tree with one group and three link loops (errors met while enumerating, when followed).</summary>
    private static TempTree LoopTree()
    {
        var tree = new TempTree();
        var content = TempTree.RandomBytes(3000, 5);
        tree.Write("x.bin", content);
        tree.Write("d/y.bin", content);
        tree.Symlink("..", "d/loop");
        tree.Symlink(".", "d/e/self");
        return tree;
    }

    [LinuxFact]
    public async Task Errors_reach_the_error_callback_while_the_scan_runs_and_the_summary_keeps_them()
    {
        using var tree = LoopTree();
        DuplicateScan? scan = null;
        var seenBeforeEnd = 0;
        var errors = new Recorder<ScanError>(_ =>
        {
            if (scan is { IsCompleted: false })
            {
                Interlocked.Increment(ref seenBeforeEnd);
            }
        });
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).FollowSymbolicLinks().ReportErrors(errors).Build();

        scan = finder.FindAsync();
        var groups = 0;
        await foreach (var group in scan)
        {
            groups++;
        }

        Assert.Equal(1, groups);
        Assert.Equal(2, scan.Summary.Errors.Count);
        Assert.All(scan.Summary.Errors, e => Assert.Equal(ScanErrorKind.SymbolicLinkLoop, e.Kind));
        Assert.Equal(scan.Summary.Errors.OrderBy(e => e.Path), errors.Items.OrderBy(e => e.Path));
        Assert.Equal(2, seenBeforeEnd);
    }

    [Fact]
    public async Task Each_scan_reports_to_its_own_callbacks_and_the_finders_default_gets_none_of_it()
    {
        using var tree = new TempTree();
        tree.Write("a", "same");
        tree.Write("b", "same");
        var finderDefault = new Recorder<ScanProgress>();
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).ReportProgress(finderDefault).Build();

        var first = new Recorder<ScanProgress>();
        var second = new Recorder<ScanProgress>();
        await DrainAsync(finder.FindAsync(new ScanCallbacks { Progress = first }));
        await DrainAsync(finder.FindAsync(new ScanCallbacks { Progress = second }));

        Assert.Empty(finderDefault.Items);
        Assert.Equal(ScanPhase.Completed, first.Items.Last().Phase);
        Assert.Equal(ScanPhase.Completed, second.Items.Last().Phase);
        Assert.Equal(1, second.Items.Last().GroupsFound);

        // Without callbacks of its own, a scan uses the finder's.
        await DrainAsync(finder.FindAsync());
        Assert.Equal(ScanPhase.Completed, finderDefault.Items.Last().Phase);
    }

    [LinuxFact]
    public async Task The_logger_sees_start_each_error_and_the_end_with_stable_event_ids()
    {
        using var tree = LoopTree();
        var logger = new CollectingLogger();
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).FollowSymbolicLinks().UseLogger(logger).Build();

        var scan = finder.FindAsync();
        await DrainAsync(scan);

        Assert.Equal(100, logger.Ids.First());
        Assert.Contains("whole files", logger.Entries.First().Message, StringComparison.Ordinal);
        Assert.Equal(101, logger.Ids.Last());
        var fileErrors = logger.Entries.Where(e => e.Id.Id == 104).ToArray();
        Assert.Equal(2, fileErrors.Length);
        Assert.All(fileErrors, e => Assert.Equal(LogLevel.Warning, e.Level));
        Assert.Contains(fileErrors, e => e.Message.Contains(tree.PathOf("d/loop"), StringComparison.Ordinal));
        var end = logger.Entries.Last();
        Assert.Equal(LogLevel.Information, end.Level);
        Assert.Contains("1 groups", end.Message, StringComparison.Ordinal);
        Assert.Contains("2 errors", end.Message, StringComparison.Ordinal);
        Assert.Equal("ScanCompleted", end.Id.Name);
    }

    [Fact]
    public async Task A_cancelled_scan_is_logged_as_cancelled_and_a_missing_root_as_an_error()
    {
        using var tree = new TempTree();
        tree.Write("a", "same");
        tree.Write("b", "same");
        var logger = new CollectingLogger();
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).UseLogger(logger).Build();
        using var cts = new CancellationTokenSource();
        await cts.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => DrainAsync(finder.FindAsync(cts.Token)));
        Assert.Equal([100, 102], logger.Ids);

        var missing = new DuplicateFinderBuilder().AddRoot(tree.PathOf("not-mounted")).UseLogger(logger).Build();
        await Assert.ThrowsAsync<DirectoryNotFoundException>(() => DrainAsync(missing.FindAsync()));
        var last = logger.Entries.Last();
        Assert.Equal((105, LogLevel.Error), (last.Id.Id, last.Level));
        Assert.Contains(tree.PathOf("not-mounted"), last.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Plain_options_configure_the_builder_as_the_fluent_methods_do()
    {
        using var tree = new TempTree();
        tree.Write("small/a", "same");
        tree.Write("small/b", "same");
        var big = TempTree.RandomBytes(5000, 3);
        tree.Write("big/a.bin", big);
        tree.Write("big/b.bin", big);
        tree.Write("big/skip/c.bin", big);
        var options = new ScanOptions { MinSize = 1000, Comparer = "bytewise", MaxDegreeOfParallelism = 1 };
        options.Roots.Add(tree.Root);
        options.Exclude.Add("**/skip/**");

        var finder = new DuplicateFinderBuilder().Configure(options).Build();
        var groups = new List<DuplicateGroup>();
        await foreach (var group in finder.FindAsync())
        {
            groups.Add(group);
        }

        Assert.Equal("bytewise", finder.Strategy.Name);
        var only = Assert.Single(groups);
        Assert.Equal([tree.PathOf("big/a.bin"), tree.PathOf("big/b.bin")], only.Files.Select(f => f.Path.ToString()));

        Assert.Throws<ArgumentException>(() => new DuplicateFinderBuilder().Configure(new ScanOptions { Comparer = "fastest" }));
        var negative = new ScanOptions { MinSize = -1 };
        negative.Roots.Add(tree.Root);
        Assert.Throws<ArgumentOutOfRangeException>(() => new DuplicateFinderBuilder().Configure(negative).Build());
    }

    [Fact]
    public async Task A_scan_is_enumerated_once_and_says_how_to_scan_again()
    {
        using var tree = new TempTree();
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        var early = Assert.Throws<InvalidOperationException>(() => scan.Summary);
        Assert.Contains("enumerated to the end", early.Message, StringComparison.Ordinal);
        await DrainAsync(scan);

        var again = Assert.Throws<InvalidOperationException>(() => scan.GetAsyncEnumerator());
        Assert.Contains("FindAsync again", again.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_missing_root_and_a_file_root_are_told_apart()
    {
        using var tree = new TempTree();
        var missing = new DuplicateFinderBuilder().AddRoot(tree.PathOf("gone")).Build();
        Assert.Contains("does not exist (is its disk mounted?)", Assert.Throws<DirectoryNotFoundException>(missing.CheckRoots).Message, StringComparison.Ordinal);
        var file = new DuplicateFinderBuilder().AddRoot(tree.Write("f", "x")).UseFolderMode().Build(); // a file root (Linux) cannot be in folder mode
        Assert.Contains("is a file", Assert.Throws<DirectoryNotFoundException>(file.CheckRoots).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Plain_options_set_every_setting_and_keep_the_fluent_defaults()
    {
        using var tree = new TempTree();
        var options = new ScanOptions { MaxSize = 5000, MaxDegreeOfParallelism = 3, StayOnOneFileSystem = true, FollowSymbolicLinks = true, IncludeEmptyFiles = true };
        options.Roots.Add(tree.Root);
        options.Include.Add("**/*.bin");
        var configured = new DuplicateFinderBuilder().Configure(options).Build().Options;

        Assert.True(new ScanOptions().IncludeHidden); // as the builder's default
        Assert.Equal(5000, configured.MaxSize);
        Assert.Equal(3, configured.MaxDegreeOfParallelism);
        Assert.True(configured.StayOnOneFileSystem && configured.FollowSymbolicLinks && configured.IncludeEmptyFiles && configured.IncludeHidden);
        Assert.Single(configured.Includes);
        Assert.Throws<ArgumentNullException>(() => ((DuplicateFinderBuilder)null!).Configure(options));
        Assert.Throws<ArgumentNullException>(() => new DuplicateFinderBuilder().Configure(null!));

        // The enumerator's context carries each switch as it was set.
        foreach (var on in new[] { true, false })
        {
            var o = new ScanOptions { IncludeHidden = on, FollowSymbolicLinks = on, StayOnOneFileSystem = on };
            o.Roots.Add(tree.Root);
            var context = Dedup.Core.Scanning.EnumerationContexts.Create(new DuplicateFinderBuilder().Configure(o).Build().Options, new ScanErrorSink());
            Assert.Equal((on, on, on), (context.IncludeHidden, context.FollowSymbolicLinks, context.StayOnOneFileSystem));
        }
    }

    private static async Task DrainAsync(DuplicateScan scan)
    {
        await foreach (var unused in scan)
        {
        }
    }
}
