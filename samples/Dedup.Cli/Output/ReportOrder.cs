using Dedup.Core;
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
    public static void Sort(List<DuplicateGroup> groups, string order)
    {
        Comparison<DuplicateGroup> primary = order switch
        {
            "size" => static (a, b) => b.Size.CompareTo(a.Size),
            "count" => static (a, b) => b.Files.Count.CompareTo(a.Files.Count),
            "path" => static (_, _) => 0,
            _ => static (a, b) => b.WastedBytes.CompareTo(a.WastedBytes),
        };

        // Paths are unique across a scan's own groups (a file is in one group), so the tie-break makes the order total;
        // with a catalog a file can also be in a group across machines, told apart by its digest.
        groups.Sort((a, b) =>
        {
            var byKey = primary(a, b);
            if (byKey == 0)
            {
                byKey = a.Files[0].Path.CompareTo(b.Files[0].Path);
            }

            return byKey != 0 ? byKey : a.Sha256.Span.SequenceCompareTo(b.Sha256.Span);
        });
    }

    /// <summary>The summary with its errors in path order (they are met in thread-timing order).</summary>
    public static ScanSummary Stable(ScanSummary summary) => summary with
    {
        Errors = summary.Errors.OrderBy(e => e.Path, StringComparer.Ordinal).ThenBy(e => e.Kind).ThenBy(e => e.Message, StringComparer.Ordinal).ToArray(),
    };
}
