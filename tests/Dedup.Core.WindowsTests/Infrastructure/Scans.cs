using Dedup.Core.Reporting;

namespace Dedup.Core.WindowsTests.Infrastructure;

/// <summary>Runs a scan through the public API and returns its groups as sorted root-relative names.</summary>
internal static class Scans
{
    public static async Task<List<string[]>> GroupsAsync(TempTree tree, Func<DuplicateFinderBuilder, DuplicateFinderBuilder>? configure = null, List<ScanError>? errors = null, CancellationToken cancellationToken = default)
    {
        var builder = new DuplicateFinderBuilder().AddRoot(tree.Root);
        var scan = (configure?.Invoke(builder) ?? builder).Build().FindAsync(cancellationToken);
        var groups = new List<string[]>();
        await foreach (var group in scan.WithCancellation(cancellationToken))
        {
            groups.Add(group.Files.SelectMany(f => f.OtherLinks.Prepend(f.Path)).Select(p => tree.Relative(p.ToString()))
                .Order(StringComparer.Ordinal).ToArray());
        }

        errors?.AddRange(scan.Summary.Errors);
        return groups.OrderBy(g => g[0], StringComparer.Ordinal).ToList();
    }

    public static async Task<List<DuplicateGroup>> RawGroupsAsync(string root)
    {
        var groups = new List<DuplicateGroup>();
        await foreach (var group in new DuplicateFinderBuilder().AddRoot(root).IncludeHidden().Build().FindAsync())
        {
            groups.Add(group);
        }

        return groups;
    }
}
