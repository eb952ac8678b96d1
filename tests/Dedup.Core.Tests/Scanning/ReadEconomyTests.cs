using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// The documented economies of the pipeline, measured with <see cref="Reporting.ScanSummary.BytesRead"/>:
/// probes settle files that differ at either end, and in-step comparison stops at the first difference.
/// </summary>
public sealed class ReadEconomyTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(3 * 1024 * 1024 - 1)]
    public async Task Large_files_differing_at_either_end_are_told_apart_by_the_probes_alone(int position)
    {
        // The 4 KiB prefix and suffix probes must settle these without reading the 3 MiB bodies.
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(3 * 1024 * 1024, 21);
        tree.Write("a.bin", content);
        content[position] ^= 1;
        tree.Write("b.bin", content);

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Empty(groups);
        Assert.InRange(summary.BytesRead, 1, 2 * 2 * 4096);
    }

    [Theory]
    [InlineData("bytewise")]
    [InlineData("vectorized")]
    [InlineData("hybrid")]
    public async Task Comparison_stops_at_the_first_difference(string strategy)
    {
        // Read in step with early exit: files differing at 1 MiB are not read to their 3 MiB end.
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(3 * 1024 * 1024, 22);
        tree.Write("a.bin", content);
        content[1024 * 1024] ^= 1;
        tree.Write("b.bin", content);

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).UseComparer(ComparerStrategies.FromName(strategy)));

        Assert.Empty(groups);
        Assert.InRange(summary.BytesRead, 2 * 1024 * 1024, 2 * 1536 * 1024);
    }
}
