using Dedup.Core;
using Dedup.Core.Reporting;

namespace Dedup.Cli.Output;

/// <summary>
/// How <c>dedup find</c> writes its report: the format, the group order, whether groups are listed at all, and for
/// <c>--format paths0 --keep</c> the planner whose removals are the names written, and whether the summary tells what
/// the run cost (<c>--stats</c>).
/// </summary>
internal sealed record ReportOptions(string Format, string Order, bool SummaryOnly, bool Folders = false, Dedup.Core.Linking.DuplicateActionPlanner? Keep = null, bool Statistics = false);

/// <summary>
/// The report's stable order for what is not a group (groups: <see cref="HeldGroups.InOrder"/>): errors are met in
/// thread-timing order; sorted here, the same tree gives byte-identical reports.
/// </summary>
internal static class ReportOrder
{
    /// <summary>The summary with its errors in path order (they are met in thread-timing order).</summary>
    public static ScanSummary Stable(ScanSummary summary) => summary with
    {
        Errors = summary.Errors.OrderBy(e => e.Path, StringComparer.Ordinal).ThenBy(e => e.Kind).ThenBy(e => e.Message, StringComparer.Ordinal).ToArray(),
    };
}
