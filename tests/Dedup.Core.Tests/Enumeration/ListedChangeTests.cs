using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.EnumerationTests;

/// <summary>
/// What the scan says when the file it opens differs from the listing (<see cref="ScannedFile.DescribeChange"/>): both
/// values to the nanosecond and the listing's name; a time listed in whole microseconds (tar, rsync, databases),
/// milliseconds or seconds is compared at that precision, so such a manifest does not fail every file.
/// </summary>
public sealed class ListedChangeTests
{
    private const string Source = "BackupTool.ManifestEnumerator";

    // 2026-11-29T10:00:00Z in nanoseconds since the Unix epoch.
    private const long Base = 1_795_946_400_000_000_000;

    [Theory]
    [InlineData(Base + 123_456_700, Base + 123_456_700)] // the walk's own value, to 100 ns
    [InlineData(Base + 123_456_700, Base + 123_456_789)] // the same 100 ns: all DateTime holds
    [InlineData(Base + 123_456_000, Base + 123_456_789)] // listed in microseconds
    [InlineData(Base + 123_000_000, Base + 123_999_999)] // in milliseconds
    [InlineData(Base, Base + 999_999_999)] // in seconds (ustar)
    public void A_file_that_matches_the_listing_at_its_precision_has_no_change(long listedNs, long foundNs)
    {
        Assert.Equal(string.Empty, Listed(listedNs).DescribeChange(10, foundNs, Source));
    }

    [Theory]
    [InlineData(Base + 123_456_000, Base + 123_457_000, "2026-11-29T10:00:00.123456000Z", "2026-11-29T10:00:00.123457000Z")] // the next microsecond
    [InlineData(Base + 123_456_700, Base + 123_456_801, "2026-11-29T10:00:00.123456700Z", "2026-11-29T10:00:00.123456801Z")] // 100 ns later
    [InlineData(Base, Base + 1_000_000_000, "2026-11-29T10:00:00.000000000Z", "2026-11-29T10:00:01.000000000Z")] // the next second
    [InlineData(Base + 123_456_000, Base + 123_455_999, "2026-11-29T10:00:00.123456000Z", "2026-11-29T10:00:00.123455999Z")] // earlier: restored
    public void A_modified_file_shows_both_times_and_names_the_listing(long listedNs, long foundNs, string listed, string found)
    {
        Assert.Equal($"modified: listed by {Source} {listed}, found {found}", Listed(listedNs).DescribeChange(10, foundNs, Source));
    }

    [Fact]
    public void A_resized_file_shows_both_sizes_and_the_walks_own_listing_is_not_named()
    {
        Assert.Equal($"size 10 listed by {Source} became 11", Listed(Base).DescribeChange(11, Base, Source));
        Assert.Equal("size 10 listed became 11", Listed(Base).DescribeChange(11, Base, source: null));
        Assert.Equal("modified: listed 2026-11-29T10:00:00.000000100Z, found 2026-11-29T10:00:00.000000200Z", Listed(Base + 100).DescribeChange(10, Base + 200, source: null));
    }

    [Fact]
    public void Times_before_1970_are_written_as_they_are()
    {
        Assert.Equal(
            "modified: listed 1969-12-31T23:59:59.999999000Z, found 1969-12-31T23:59:59.999998999Z",
            Listed(-1_000).DescribeChange(10, -1_001, source: null));
        Assert.Equal(string.Empty, Listed(-1_000).DescribeChange(10, -1, source: "Manifest")); // within that microsecond
    }

    [Fact]
    public void The_librarys_own_listing_is_compared_exactly_even_when_its_time_is_a_whole_second()
    {
        // The kernel's own time, whole by chance (or set by touch -d): a change within that second is still a change.
        Assert.Equal(
            "modified: listed 2026-11-29T10:00:00.000000000Z, found 2026-11-29T10:00:00.500000000Z",
            Listed(1_795_946_400_000_000_000).DescribeChange(10, 1_795_946_400_500_000_000, source: null));
        Assert.Equal(string.Empty, Listed(1_795_946_400_000_000_000).DescribeChange(10, 1_795_946_400_500_000_000, source: "Manifest"));
    }

    [Fact]
    public void The_listing_is_named_by_its_type_unless_it_is_the_librarys_walk()
    {
        Assert.Null(ScannedFile.SourceName(new ParallelFileEnumerator()));
        Assert.Equal(typeof(PathListEnumerator).FullName, ScannedFile.SourceName(new PathListEnumerator()));
    }

    [LinuxFact]
    public async Task A_manifest_in_microseconds_gets_its_groups_and_a_real_change_names_both_times()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(30_000, 1);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        var c = tree.Write("c.bin", TempTree.RandomBytes(30_000, 2));
        var d = tree.Write("d.bin", TempTree.RandomBytes(30_000, 2));
        var sub = new DateTime(2026, 11, 29, 10, 0, 0, DateTimeKind.Utc).AddTicks(1_234_567); // .1234567: below a microsecond
        foreach (var file in new[] { a, b, c, d })
        {
            File.SetLastWriteTimeUtc(file, sub);
        }

        var (groups, summary) = await Scan.RunAsync(builder => builder.AddRoot(tree.Root).UseFileEnumerator(new MicrosecondManifest(changed: d)));

        Assert.Equal(Expect.Groups([a, b]), Scan.Canonical(groups));
        var error = Assert.Single(summary.Errors);
        Assert.Equal(d, error.Path);
        Assert.Equal(
            $"File changed during the scan (modified: listed by {typeof(MicrosecondManifest).FullName} 2026-11-29T09:59:59.123456000Z, found 2026-11-29T10:00:00.123456700Z); left out",
            error.Message);
    }

    private static ScannedFile Listed(long lastWriteNs) =>
        new(AbsolutePath.Parse(OperatingSystem.IsWindows() ? @"C:\f" : "/f"), 10, new FileIdentity(1, 2), 1, FileTable.ToDateTime(lastWriteNs)) { LastWriteTimeNs = lastWriteNs };

    /// <summary>Lists each file with its time cut to microseconds, as tar or rsync keep it; <paramref name="changed"/> a second early.</summary>
    private sealed class MicrosecondManifest(string changed) : IFileEnumerator
    {
        public async IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            await foreach (var file in new PathListEnumerator().EnumerateAsync(context, cancellationToken))
            {
                var time = file.LastWriteTimeUtc.AddTicks(-(file.LastWriteTimeUtc.Ticks % 10));
                yield return new ScannedFile(file.Path, file.Length, file.Identity, file.LinkCount, file.Path.ToString() == changed ? time.AddSeconds(-1) : time);
            }
        }
    }
}
