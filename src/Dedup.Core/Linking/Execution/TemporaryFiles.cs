using Dedup.Core.FileSystem;
using Dedup.Core.Interop;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Leftovers of an interrupted run: files under a temporary name (<see cref="TemporaryNames"/>). Only names matching
/// that exact pattern are ever listed, and only regular files and symbolic links (never folders); a name alone proves
/// nothing, so <see cref="LeftoverCleaner"/> removes only those whose content provably exists elsewhere.
/// </summary>
internal static class TemporaryFiles
{

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
            if (Paths.KernelNames.HasEscapedBytes(folder))
            {
                continue; // the BCL would list another folder (its name with U+FFFD): such folders are not searched
            }

            IEnumerable<string> entries;
            try
            {
                entries = Directory.EnumerateFileSystemEntries(folder, TemporaryNames.Prefix + "*").ToArray();
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                continue;
            }

            foreach (var entry in entries)
            {
                if (TemporaryNames.IsTemporaryName(System.IO.Path.GetFileName(entry)) && IsFileOrLink(entry))
                {
                    found.Add(entry);
                }
            }
        }

        found.Sort(StringComparer.Ordinal);
        return found;
    }

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static bool IsFileOrLink(string path) =>
        Libc.LStat(path, out var status) == 0 && (status.IsRegularFile || status.IsSymbolicLink);
}
