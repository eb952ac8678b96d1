using Dedup.Core.Reporting;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>Runs a finder to the end and returns its groups (as sorted path lists) and summary.</summary>
public static class Scan
{
    public static async Task<(List<DuplicateGroup> Groups, ScanSummary Summary)> RunAsync(DuplicateFinder finder, CancellationToken cancellationToken = default)
    {
        var scan = finder.FindAsync(cancellationToken);
        var groups = new List<DuplicateGroup>();
        await foreach (var group in scan)
        {
            groups.Add(group);
        }

        return (groups, scan.Summary);
    }

    public static Task<(List<DuplicateGroup> Groups, ScanSummary Summary)> RunAsync(Action<DuplicateFinderBuilder> configure, CancellationToken cancellationToken = default)
    {
        var builder = new DuplicateFinderBuilder();
        configure(builder);
        return RunAsync(builder.Build(), cancellationToken);
    }

    /// <summary>Each group as the sorted list of its files' primary paths; groups sorted.</summary>
    public static List<string> Canonical(IEnumerable<DuplicateGroup> groups) =>
        groups.Select(g => string.Join(" | ", g.Files.Select(f => f.Path.ToString()).Order(StringComparer.Ordinal)))
            .Order(StringComparer.Ordinal)
            .ToList();
}
