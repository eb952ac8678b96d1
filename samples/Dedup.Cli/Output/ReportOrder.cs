using Dedup.Core;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Cli.Output;

/// <summary>How <c>dedup find</c> writes its report: the format, the group order and whether groups are listed at all.</summary>
internal sealed record ReportOptions(string Format, string Order, bool SummaryOnly, bool Folders = false);

/// <summary>
/// The report's stable order. Groups come from the scan as each is settled, which varies run to run with thread timing;
/// sorted here, the same tree gives byte-identical reports (files within a group are already in path order).
/// </summary>
internal static class ReportOrder
{
    /// <summary>The order <paramref name="order"/> over groups held in any form, given how to read each key.</summary>
    public static Comparison<T> Compare<T>(string order, Func<T, long> size, Func<T, int> count, Func<T, long> wasted, Func<T, AbsolutePath> firstPath, Func<T, ReadOnlyMemory<byte>>? digest = null)
    {
        Comparison<T> primary = order switch
        {
            "size" => (a, b) => size(b).CompareTo(size(a)),
            "count" => (a, b) => count(b).CompareTo(count(a)),
            "path" => static (_, _) => 0,
            _ => (a, b) => wasted(b).CompareTo(wasted(a)),
        };

        // Paths are unique across a scan's own groups (a file is in one group), so the tie-break makes the order total;
        // with a catalog a file can also be in a group across machines, told apart by its digest.
        return (a, b) =>
        {
            var byKey = primary(a, b);
            if (byKey == 0)
            {
                byKey = firstPath(a).CompareTo(firstPath(b));
            }

            return byKey != 0 || digest is null ? byKey : digest(a).Span.SequenceCompareTo(digest(b).Span);
        };
    }

    /// <summary>The summary with its errors in path order (they are met in thread-timing order).</summary>
    public static ScanSummary Stable(ScanSummary summary) => summary with
    {
        Errors = summary.Errors.OrderBy(e => e.Path, StringComparer.Ordinal).ThenBy(e => e.Kind).ThenBy(e => e.Message, StringComparer.Ordinal).ToArray(),
    };
}
