using Dedup.Core;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.ExternalTests;

/// <summary>An embedder's unit tests build results of their own, with nothing but the public API.</summary>
public sealed class ResultFactoryTests
{
    [Fact]
    public async Task Groups_files_summaries_and_a_whole_scan_can_be_made_for_tests()
    {
        var written = new DateTime(2026, 11, 24, 12, 0, 0, DateTimeKind.Utc);
        var a = new DuplicateFile(AbsolutePath.Parse("/backup/a.iso"), [], FileIdentity.FromStatx(8, 1, 100), 4096, 1, written);
        var b = new DuplicateFile(AbsolutePath.Parse("/backup/b.iso"), [AbsolutePath.Parse("/backup/b-link.iso")], FileIdentity.FromStatx(8, 1, 101), 4096, 2, written);
        var group = new DuplicateGroup(4096, [a, b], verifiedByBytes: true);
        var summary = new ScanSummary
        {
            FilesScanned = 3,
            BytesRead = 8192,
            Groups = 1,
            DuplicateFiles = 1,
            WastedBytes = group.WastedBytes,
            Errors = [new ScanError("/backup/locked", ScanErrorKind.AccessDenied, "Permission denied")],
            Elapsed = TimeSpan.FromSeconds(1),
        };

        var scan = DuplicateScan.FromResults([group], summary);
        Assert.False(scan.IsCompleted);
        Assert.Throws<InvalidOperationException>(() => scan.Summary);
        var seen = new List<DuplicateGroup>();
        await foreach (var g in scan)
        {
            seen.Add(g);
        }

        Assert.Same(group, Assert.Single(seen));
        Assert.True(scan.IsCompleted);
        Assert.Same(summary, scan.Summary);
        Assert.Equal(4096, group.WastedBytes);
        Assert.Equal("/backup/b-link.iso", Assert.Single(b.OtherLinks).ToString());
        Assert.Empty(group.Roots);
        await Assert.ThrowsAsync<InvalidOperationException>(async () =>
        {
            await foreach (var unused in scan)
            {
            }
        });
    }

    [Fact]
    public void A_group_needs_its_files()
    {
        var a = new DuplicateFile(AbsolutePath.Parse("/backup/a"), [], FileIdentity.FromStatx(8, 1, 1), 1, 1, DateTime.UnixEpoch);
        var b = new DuplicateFile(AbsolutePath.Parse("/backup/b"), [], FileIdentity.FromStatx(8, 1, 2), 1, 1, DateTime.UnixEpoch);
        var pair = new DuplicateGroup(1, [a, b], verifiedByBytes: true);

        Assert.Throws<ArgumentNullException>(() => new DuplicateGroup(1, null!, verifiedByBytes: true));
        Assert.Throws<ArgumentNullException>(() => new DuplicateFile(null!, [], default, 1, 1, DateTime.UnixEpoch));
        Assert.Contains("at least two files; this one has 1", Assert.Throws<ArgumentException>(() => new DuplicateGroup(1, [a], verifiedByBytes: true)).Message);
        Assert.Throws<ArgumentException>(() => new DuplicateGroup(1, [], verifiedByBytes: true));
        Assert.Throws<ArgumentException>(() => pair with { Files = [b] });
        Assert.Throws<ArgumentNullException>(() => pair with { Files = null! });
        Assert.Throws<ArgumentOutOfRangeException>(() => new DuplicateGroup(-1, [a, b], verifiedByBytes: true));
        Assert.Throws<ArgumentOutOfRangeException>(() => pair with { Size = -1 });
        Assert.Equal(0, (pair with { Size = 0 }).Size);
    }

    [Fact]
    public void Groups_are_equal_when_their_values_are()
    {
        DuplicateFile File(string path, ulong inode) => new(AbsolutePath.Parse(path), [], FileIdentity.FromStatx(8, 1, inode), 4, 1, DateTime.UnixEpoch);
        DuplicateGroup Pair() => new(4, [File("/r/a", 1), File("/r/b", 2)], verifiedByBytes: true) { Sha256 = new byte[] { 1, 2 }, Roots = [new ScanRoot(AbsolutePath.Parse("/r"), FileIdentity.FromStatx(8, 1, 9))] };

        Assert.Equal(Pair(), Pair());
        Assert.Equal(Pair().GetHashCode(), Pair().GetHashCode());
        Assert.True(Pair() == Pair());
        Assert.NotEqual(Pair(), Pair() with { Size = 5 });
        Assert.NotEqual(Pair(), Pair() with { Match = ContentMatch.MediaPayload });
        Assert.NotEqual(Pair(), Pair() with { VerifiedByBytes = false });
        Assert.NotEqual(Pair(), Pair() with { Sha256 = new byte[] { 1, 3 } });
        Assert.NotEqual(Pair(), Pair() with { Files = [File("/r/a", 1), File("/r/c", 2)] });
        Assert.NotEqual(Pair(), Pair() with { Files = [File("/r/a", 1), File("/r/b", 2), File("/r/d", 3)] });
        Assert.NotEqual(Pair(), Pair() with { Roots = [] });
        Assert.False(Pair().Equals(null));
    }
}
