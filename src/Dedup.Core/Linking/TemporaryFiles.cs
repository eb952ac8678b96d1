using System.Text.RegularExpressions;

namespace Dedup.Core.Linking;

/// <summary>
/// Names replacements are created under before being renamed into place: <c>.dedup-tmp-</c> followed by 32
/// lowercase hexadecimal digits, in the duplicate's own folder. Only names matching this exact pattern are
/// ever treated as leftovers, and only regular files and symbolic links (never folders).
/// </summary>
internal static partial class TemporaryFiles
{
    public const string Prefix = ".dedup-tmp-";

    public static string NewName() => Prefix + Guid.NewGuid().ToString("N");

    public static bool IsTemporaryName(string name) => Pattern().IsMatch(name);

    /// <summary>Leftover temporary files in <paramref name="folders"/> (each listed once); none off Linux.</summary>
    public static IReadOnlyList<string> FindLeftovers(IEnumerable<string> folders)
    {
        var found = new List<string>();
        if (!OperatingSystem.IsLinux())
        {
            return found; // only the Linux linkers create temporary names, and the checks below use Linux calls
        }

        foreach (var folder in folders.Distinct(StringComparer.Ordinal))
        {
            IEnumerable<string> entries;
            try
            {
                entries = Directory.EnumerateFileSystemEntries(folder, Prefix + "*").ToArray();
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                continue;
            }

            foreach (var entry in entries)
            {
                if (IsTemporaryName(System.IO.Path.GetFileName(entry)) && IsFileOrLink(entry))
                {
                    found.Add(entry);
                }
            }
        }

        found.Sort(StringComparer.Ordinal);
        return found;
    }

    /// <summary>
    /// Removes the leftovers that still match the pattern and are still files or links; returns how many. Each
    /// folder is opened once and the check and the unlink work relative to it, so a folder swapped for a symbolic
    /// link in between cannot send the unlink elsewhere.
    /// </summary>
    public static int RemoveLeftovers(IEnumerable<string> paths)
    {
        var removed = 0;
        foreach (var inFolder in paths.GroupBy(System.IO.Path.GetDirectoryName, StringComparer.Ordinal))
        {
            using var folder = inFolder.Key is null ? null : FolderHandle.TryOpen(inFolder.Key, followLast: true, out _);
            if (folder is null)
            {
                continue;
            }

            foreach (var path in inFolder)
            {
                var name = System.IO.Path.GetFileName(path);
                if (IsTemporaryName(name) && LinkNative.LStatAt(folder.Fd, name, out var status) == 0 &&
                    (status.IsRegularFile || status.IsSymbolicLink) && LinkNative.UnlinkAt(folder.Fd, name, 0) == 0)
                {
                    removed++;
                }
            }
        }

        return removed;
    }

    private static bool IsFileOrLink(string path) =>
        LinkNative.LStat(path, out var status) == 0 && (status.IsRegularFile || status.IsSymbolicLink);

    [GeneratedRegex("^\\.dedup-tmp-[0-9a-f]{32}\\z", RegexOptions.CultureInvariant)]
    private static partial Regex Pattern();
}
