using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Folders;

/// <summary>Runs a folder-mode scan of a temporary tree and describes its results by paths relative to the tree.</summary>
internal static class FolderScanRun
{
    public static async Task<(List<string> Folders, List<string> Files, DuplicateScan Scan)> RunAsync(TempTree tree, bool ignoreNames = false, Action<DuplicateFinderBuilder>? configure = null)
    {
        var builder = new DuplicateFinderBuilder().AddRoot(tree.Root).UseFolderMode(ignoreNames: ignoreNames);
        configure?.Invoke(builder);
        var scan = builder.Build().FindAsync();
        var files = new List<DuplicateGroup>();
        await foreach (var group in scan)
        {
            files.Add(group);
        }

        var folders = scan.FolderGroups.Where(g => g.IsExact)
            .Select(g => string.Join(" | ", g.Folders.Select(f => Relative(tree, f.ToString()))))
            .Order(StringComparer.Ordinal)
            .ToList();
        var fileGroups = files
            .Select(g => string.Join(" | ", g.Files.SelectMany(f => f.OtherLinks.Prepend(f.Path)).Select(p => Relative(tree, p.ToString())).Order(StringComparer.Ordinal)))
            .Order(StringComparer.Ordinal)
            .ToList();
        return (folders, fileGroups, scan);
    }

    public static string Relative(TempTree tree, string path) => Path.GetRelativePath(tree.Root, path).Replace('\\', '/');
}
