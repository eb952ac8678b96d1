using Dedup.Core;
using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.ExternalTests;

/// <summary>
/// docs/usage.md "Testing code that uses Dedup.Core", as a consumer writes it: the code under test takes a
/// <see cref="DuplicateFinder"/>, the test gives it a fake that returns results made with the public factories.
/// </summary>
public sealed class FakeFinderTests
{
    /// <summary>The consumer's code under test: how much a nightly job could free.</summary>
    private sealed class NightlyReport(DuplicateFinder finder)
    {
        public async Task<string> RunAsync(CancellationToken cancellationToken = default)
        {
            var scan = finder.FindAsync(cancellationToken);
            var largest = 0L;
            await foreach (var group in scan.WithCancellation(cancellationToken))
            {
                largest = Math.Max(largest, group.WastedBytes);
            }

            return $"{scan.Summary.Groups} groups, {scan.Summary.WastedBytes} bytes to free, largest {largest}";
        }
    }

    /// <summary>The test's fake: no disk, no scan.</summary>
    private sealed class FakeFinder(params DuplicateGroup[] groups) : DuplicateFinder
    {
        public override IReadOnlyList<string> Roots => ["/backup"];

        public override IComparerStrategy Strategy => ComparerStrategies.Bytewise;

        public override DuplicateScan FindAsync(ScanCallbacks callbacks, CancellationToken cancellationToken = default) =>
            DuplicateScan.FromResults(groups);
    }

    private static DuplicateFile File(string path, ulong inode, long length) =>
        new(AbsolutePath.Parse(path), [], FileIdentity.FromStatx(8, 1, inode), length, 1, DateTime.UnixEpoch);

    [Fact]
    public async Task Code_that_takes_a_finder_is_tested_with_a_fake()
    {
        var isos = new DuplicateGroup(4096, [File("/backup/a.iso", 1, 4096), File("/backup/b.iso", 2, 4096), File("/backup/c.iso", 3, 4096)], verifiedByBytes: true);
        var logs = new DuplicateGroup(10, [File("/backup/x.log", 4, 10), File("/backup/y.log", 5, 10)], verifiedByBytes: true);

        var report = await new NightlyReport(new FakeFinder(isos, logs)).RunAsync();

        Assert.Equal("2 groups, 8202 bytes to free, largest 8192", report);
    }

    [Fact]
    public async Task A_fake_scan_adds_up_its_summary_from_its_groups()
    {
        var linked = new DuplicateFile(AbsolutePath.Parse("/backup/b"), [AbsolutePath.Parse("/backup/b2")], FileIdentity.FromStatx(8, 1, 7), 5, 2, DateTime.UnixEpoch);
        var group = new DuplicateGroup(5, [File("/backup/a", 6, 5), linked, File("/backup/c", 8, 5)], verifiedByBytes: true);
        var error = new ScanError("/backup/locked", ScanErrorKind.AccessDenied, "Permission denied");

        var scan = DuplicateScan.FromResults([group]);
        await foreach (var unused in scan)
        {
        }

        Assert.Equal(
            new ScanSummary { FilesScanned = 4, BytesRead = 0, Groups = 1, DuplicateFiles = 2, WastedBytes = 10, Errors = scan.Summary.Errors, Elapsed = TimeSpan.Zero },
            scan.Summary);
        Assert.Empty(scan.Summary.Errors);
        Assert.Same(DuplicateScan.SummaryOf([group], [error]).Errors[0], error);
        Assert.Equal(0, DuplicateScan.SummaryOf([]).Groups);
        Assert.Throws<ArgumentNullException>(() => DuplicateScan.SummaryOf(null!));
        Assert.Throws<ArgumentNullException>(() => DuplicateScan.FromResults((IEnumerable<DuplicateGroup>)null!));
    }

    [Fact]
    public async Task The_overload_without_callbacks_goes_through_the_subclass()
    {
        var group = new DuplicateGroup(1, [File("/backup/p", 1, 1), File("/backup/q", 2, 1)], verifiedByBytes: true);
        var finder = new FakeFinder(group);

        var seen = new List<DuplicateGroup>();
        await foreach (var found in finder.FindAsync())
        {
            seen.Add(found);
        }

        Assert.Same(group, Assert.Single(seen));
        finder.CheckRoots(); // the base checks nothing: a fake has no disk to look at
    }
}
