using System.Text.RegularExpressions;
using Dedup.Core.Interop;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Names replacements are created under before being renamed into place: <c>.dedup-tmp-</c> followed by 32
/// lowercase hexadecimal digits, in the duplicate's own folder. Only names matching this exact pattern are
/// ever listed as leftovers, and only regular files and symbolic links (never folders); a name alone proves
/// nothing, so <see cref="LeftoverCleaner"/> removes only those whose content provably exists elsewhere.
/// </summary>
internal static partial class TemporaryFiles
{
    public const string Prefix = ".dedup-tmp-";

    public static string NewName() => Prefix + Guid.NewGuid().ToString("N");

    public static bool IsTemporaryName(string name) => Pattern().IsMatch(name);

    /// <summary>The same test on a name's bytes (as the scan stores them), without decoding it.</summary>
    public static bool IsTemporaryName(ReadOnlySpan<byte> name)
    {
        if (name.Length != Prefix.Length + 32 || !name.StartsWith(".dedup-tmp-"u8))
        {
            return false;
        }

        foreach (var b in name[Prefix.Length..])
        {
            if (b is not ((>= (byte)'0' and <= (byte)'9') or (>= (byte)'a' and <= (byte)'f')))
            {
                return false;
            }
        }

        return true;
    }

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

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static bool IsFileOrLink(string path) =>
        Libc.LStat(path, out var status) == 0 && (status.IsRegularFile || status.IsSymbolicLink);

#if NET
    [GeneratedRegex("^\\.dedup-tmp-[0-9a-f]{32}\\z", RegexOptions.CultureInvariant)]
    private static partial Regex Pattern();
#else
    private static readonly Regex PatternRegex = new("^\\.dedup-tmp-[0-9a-f]{32}\\z", RegexOptions.CultureInvariant);

    private static Regex Pattern() => PatternRegex; // netstandard2.0 has no regex generator
#endif
}
