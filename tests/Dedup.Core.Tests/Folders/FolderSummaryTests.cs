using System.Text.Json;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>Folder groups in <see cref="ScanSummary.Folders"/>, the JSON and text summaries, and <see cref="DuplicateScan.FromResults(IEnumerable{DuplicateGroup}, IEnumerable{DuplicateFolderGroup}, ScanSummary, IReadOnlyList{ScanRoot})"/>.</summary>
public sealed class FolderSummaryTests
{
    private static readonly byte[] One = TempTree.RandomBytes(5000, 1);
    private static readonly byte[] Two = TempTree.RandomBytes(6000, 2);

    /// <summary>An album in three places (two copies), one partial copy, and a pair of loose duplicates.</summary>
    private static void Tree(TempTree tree)
    {
        foreach (var root in new[] { "a", "b", "c", "partial" })
        {
            tree.Write($"{root}/album/01.mp3", One);
            tree.Write($"{root}/album/02.mp3", Two);
        }

        tree.Write("partial/album/extra.txt", "extra");
        var loose = TempTree.RandomBytes(700, 3);
        tree.Write("loose/x.bin", loose);
        tree.Write("loose/y.bin", loose);
    }

    [Fact]
    public async Task The_summary_counts_folder_groups_copies_and_their_wasted_bytes()
    {
        using var tree = new TempTree();
        Tree(tree);

        var (folders, files, scan) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a | b | c"], folders);
        Assert.Equal(
            new FolderSummary { Groups = 1, CopiedFolders = 2, CopiedFiles = 4, WastedBytes = 2 * 11000, PartialOverlaps = 1 },
            scan.Summary.Folders);
        // The file totals leave the copies out: the loose pair and a/album's songs with partial's.
        Assert.Equal(["a/album/01.mp3 | partial/album/01.mp3", "a/album/02.mp3 | partial/album/02.mp3", "loose/x.bin | loose/y.bin"], files);
        Assert.Equal(700 + 11000, scan.Summary.WastedBytes);
    }

    [Fact]
    public async Task A_plain_scan_has_no_folder_summary()
    {
        using var tree = new TempTree();
        Tree(tree);

        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        await foreach (var _ in scan)
        {
        }

        Assert.Null(scan.Summary.Folders);
    }

    [Fact]
    public async Task FromResults_reports_the_given_folder_groups_once_enumerated()
    {
        var folder = new DuplicateFolderGroup([AbsolutePath.Parse("/t/a"), AbsolutePath.Parse("/t/b")], 2, 100, verifiedByBytes: true);
        var summary = new ScanSummary { FilesScanned = 4, BytesRead = 200, Groups = 0, DuplicateFiles = 0, WastedBytes = 0, Errors = [], Elapsed = TimeSpan.Zero, Folders = DuplicateFolderGroup.Summarize([folder]) };
        var scan = DuplicateScan.FromResults([], [folder], summary);

        Assert.Empty(scan.FolderGroups); // not before the enumeration ends, as for a real scan
        await foreach (var _ in scan)
        {
        }

        Assert.Equal([folder], scan.FolderGroups);
        Assert.Equal(100, scan.Summary.Folders!.WastedBytes);
        var withoutFolders = DuplicateScan.FromResults([], summary);
        await foreach (var _ in withoutFolders)
        {
        }

        Assert.Empty(withoutFolders.FolderGroups); // enumerated: empty because none were given, not because it has not ended
    }

    [Fact]
    public async Task Json_and_text_summaries_carry_the_folders()
    {
        using var tree = new TempTree();
        Tree(tree);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--folders", "--format", "json", tree.Root]);
        var (textExit, text, textErr) = await CliProcess.RunAsync(["find", "--folders", tree.Root]);

        Assert.True(exit == 0, stderr);
        Assert.True(textExit == 0, textErr);
        using var json = JsonDocument.Parse(stdout);
        var folders = json.RootElement.GetProperty("summary").GetProperty("folders");
        Assert.Equal(
            """{"groups":1,"copiedFolders":2,"copiedFiles":4,"wastedBytes":22000,"partialOverlaps":1}""",
            folders.GetRawText());
        Assert.Contains("1 folder groups, 2 copied folders (4 files), 21.5 KiB wasted; 1 partial overlaps\n", text.ReplaceLineEndings("\n"), StringComparison.Ordinal);
    }
}
