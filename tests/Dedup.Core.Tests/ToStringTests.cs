using Dedup.Core.Enumeration;
using Dedup.Core.Media;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Tests;

/// <summary>
/// What a consumer sees printing a result or hovering it in a debugger (#36 point 9): one short line, names escaped as
/// the text report escapes them (<see cref="PathText"/>), numbers culture-free.
/// </summary>
public sealed class ToStringTests
{
    private static readonly DateTime Time = new(2026, 4, 1, 0, 0, 0, DateTimeKind.Utc);

    private static DuplicateFile File(string path, long length = 1000, long inode = 1) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(9, (ulong)inode), length, 1, Time);

    [Fact]
    public void A_file_shows_its_first_name_escaped()
    {
        Assert.Equal("/d/a\\nb\\e[31m.bin", File("/d/a\nb\u001b[31m.bin").ToString());
        Assert.Equal("/d/plain.bin", File("/d/plain.bin").ToString());
    }

    [Fact]
    public void A_group_shows_its_files_size_waste_and_first_two_names()
    {
        var group = new DuplicateGroup(3 * 1024 * 1024, [File("/a/x", inode: 1), File("/b/x\ty", inode: 2), File("/c/x", inode: 3)], verifiedByBytes: true);
        var pair = new DuplicateGroup(500, [File("/a/1", 500, 1), File("/a/2", 500, 2)], verifiedByBytes: false);

        Assert.Equal("3 files × 3.0 MiB, 6.0 MiB wasted: /a/x, /b/x\\ty, 1 more", group.ToString());
        Assert.Equal("2 files × 500 B, 500 B wasted (hash match): /a/1, /a/2", pair.ToString());
    }

    [Fact]
    public void A_payload_group_names_its_format()
    {
        var group = new DuplicateGroup(2048, [File("/m/a.mp3", 3000, 1), File("/m/b.mp3", 4000, 2)], verifiedByBytes: true, ContentMatch.MediaPayload) { MediaFormat = MediaFormat.Mp3 };

        Assert.Equal("2 files, Mp3 payload 2.0 KiB, 2.9 KiB wasted: /m/a.mp3, /m/b.mp3", group.ToString());
        Assert.StartsWith("2 files, media payload 2.0 KiB", (group with { MediaFormat = null }).ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_folder_group_shows_its_folders_and_what_removing_copies_frees()
    {
        var exact = new DuplicateFolderGroup([AbsolutePath.Parse("/a/photos"), AbsolutePath.Parse("/b/pho\rtos")], 14, 2048, verifiedByBytes: true);
        var partial = new DuplicateFolderGroup([AbsolutePath.Parse("/a/p"), AbsolutePath.Parse("/b/p")], 3, 100, verifiedByBytes: true, [new FolderDifference("x", FolderDifferenceKind.Changed)]);

        Assert.Equal("2 folders of 14 files, 2.0 KiB, 2.0 KiB wasted: /a/photos, /b/pho\\rtos", exact.ToString());
        Assert.Equal("2 folders of 3 files, 100 B, partial overlap, 1 difference: /a/p, /b/p", partial.ToString());
    }

    [Fact]
    public void A_summary_is_one_culture_free_line()
    {
        var summary = new ScanSummary
        {
            FilesScanned = 1200,
            BytesRead = 5 * 1024 * 1024,
            Groups = 3,
            DuplicateFiles = 4,
            WastedBytes = 2 * 1024 * 1024,
            Errors = [new ScanError("/p", ScanErrorKind.AccessDenied, "Permission denied")],
            Elapsed = TimeSpan.FromMilliseconds(420),
        };

        var culture = System.Globalization.CultureInfo.CurrentCulture;
        try
        {
            System.Globalization.CultureInfo.CurrentCulture = new System.Globalization.CultureInfo("de-DE");
            Assert.Equal("1200 files, 3 groups (4 duplicates), 2.0 MiB wasted, 5.0 MiB read, 1 error, 0.42 s", summary.ToString());
            Assert.EndsWith("0 errors, 0.42 s", (summary with { Errors = [] }).ToString(), StringComparison.Ordinal);
        }
        finally
        {
            System.Globalization.CultureInfo.CurrentCulture = culture;
        }
    }

    [Fact]
    public void Progress_shows_what_is_compared_once_the_totals_are_known()
    {
        var listing = new ScanProgress { Phase = ScanPhase.Enumerating, FilesScanned = 1200, BytesRead = 4096, GroupsFound = 0, Errors = 1 };
        var comparing = listing with { Phase = ScanPhase.Comparing, GroupsFound = 3, FilesToCompare = 100, BytesToCompare = 5 * 1024 * 1024, FilesCompared = 40, BytesCompared = 2 * 1024 * 1024 };

        Assert.Equal("Enumerating: 1200 files, 4.0 KiB read, 0 groups, 1 error", listing.ToString());
        Assert.Equal("Comparing: 1200 files, 4.0 KiB read, 3 groups, 1 error, compared 40/100 files (2.0 MiB/5.0 MiB)", comparing.ToString());
    }
}
