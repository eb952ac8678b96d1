using Dedup.Core.Reporting;
using Dedup.Core.Tests.Hosting;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// <see cref="ScanProgress"/> totals (#36 point 9): unknown while listing, known once the size barrier has split the
/// files, and what is compared reaches them exactly when the scan ends.
/// </summary>
public sealed class ProgressTotalsTests
{
    /// <summary>
    /// Five files of 10,000 bytes (three copies, one a hard link besides, and two distinct), two distinct files of
    /// 20,000 bytes, and two of a size of their own: whole-file mode compares the seven same-size files, 90,000 bytes.
    /// Every file is larger than what a listing keys by its first bytes (8 KiB), which may tell small files apart
    /// before the compare stage: those are then not given to it.
    /// </summary>
    private static TempTree Tree()
    {
        var tree = new TempTree();
        var a = TempTree.RandomBytes(10_000, 41);
        tree.Write("a1", a);
        tree.Write("sub/a2", a);
        tree.Write("sub/deeper/a3", a);
        tree.HardLink("a1", "a1-link");
        tree.Write("b", TempTree.RandomBytes(10_000, 42));
        tree.Write("c", TempTree.RandomBytes(10_000, 43));
        tree.Write("f1", TempTree.RandomBytes(20_000, 44));
        tree.Write("sub/f2", TempTree.RandomBytes(20_000, 45));
        tree.Write("d", TempTree.RandomBytes(7_000, 46));
        tree.Write("e", TempTree.RandomBytes(12_345, 47));
        return tree;
    }

    public static TheoryData<string, long, long> Modes => new()
    {
        { "whole files", 7, (5 * 10_000) + (2 * 20_000) },
        { "media", 9, (5 * 10_000) + (2 * 20_000) + 7_000 + 12_345 }, // every file is a candidate: its payload may equal another's
        { "folders", 9, (5 * 10_000) + (2 * 20_000) + 7_000 + 12_345 }, // every file gets a content class
    };

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task The_totals_are_the_files_the_compare_stage_is_given_and_all_are_compared_by_the_end(string mode, long files, long bytes)
    {
        using var tree = Tree();
        var progress = new Recorder<ScanProgress>();

        var (groups, summary) = await Scan.RunAsync(f =>
        {
            f.AddRoot(tree.Root).ReportProgress(progress);
            _ = mode switch
            {
                "media" => f.UseMediaMode(),
                "folders" => f.UseFolderMode(),
                _ => f,
            };
        });

        var last = progress.Items.Last();
        Assert.Equal(ScanPhase.Completed, last.Phase);
        Assert.Equal(files, last.FilesToCompare);
        Assert.Equal(bytes, last.BytesToCompare);
        Assert.Equal(files, last.FilesCompared);
        Assert.Equal(bytes, last.BytesCompared);
        Assert.Equal(10, summary.FilesScanned); // the hard link is a name, not a file to compare: counted as listed only
        Assert.Contains(groups, g => g.Files.Count == 3 && g.Size == 10_000);
    }

    [Fact]
    public async Task Totals_are_unknown_while_listing_and_what_is_compared_never_passes_them()
    {
        using var tree = Tree();
        var seen = new List<ScanProgress>();
        var progress = new Recorder<ScanProgress>(p =>
        {
            lock (seen)
            {
                seen.Add(p);
            }
        });

        await Scan.RunAsync(f => f.AddRoot(tree.Root).ReportProgress(progress));

        Assert.All(seen, p =>
        {
            if (p.Phase == ScanPhase.Enumerating)
            {
                Assert.Null(p.FilesToCompare);
                Assert.Null(p.BytesToCompare);
                Assert.Equal(0, p.FilesCompared);
            }
            else
            {
                Assert.Equal(7, p.FilesToCompare);
                Assert.InRange(p.FilesCompared, 0, 7);
                Assert.InRange(p.BytesCompared, 0, p.BytesToCompare!.Value);
            }
        });
    }

    [Fact]
    public async Task A_scan_with_no_files_of_equal_size_has_nothing_to_compare()
    {
        using var tree = new TempTree();
        tree.Write("x", TempTree.RandomBytes(10, 48));
        tree.Write("y", TempTree.RandomBytes(20, 49));
        var progress = new Recorder<ScanProgress>();

        await Scan.RunAsync(f => f.AddRoot(tree.Root).ReportProgress(progress));

        var last = progress.Items.Last();
        Assert.Equal(0, last.FilesToCompare);
        Assert.Equal(0, last.BytesToCompare);
    }
}
