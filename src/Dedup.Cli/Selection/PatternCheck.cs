using Dedup.Core.Paths;

namespace Dedup.Cli.Selection;

/// <summary>
/// Warns of an <c>--include</c> or <c>--exclude</c> glob that matches nothing: globs are matched against each file's
/// path relative to its root, so an absolute or current-folder-relative path (<c>--exclude /data/photos/tmp</c> with
/// root <c>/data/photos</c>) would silently exclude nothing, and <c>delete</c> would act on what was meant to be left out.
/// A warning, not an error: the scan is still what the options say.
/// </summary>
internal static class PatternCheck
{
    private static readonly char[] GlobCharacters = ['*', '?', '['];

    /// <summary>One line per glob that can never match, or that names a path no root holds, with the glob to use when one can be told.</summary>
    /// <param name="option">The option's name, for the text.</param>
    /// <param name="patterns">Its globs.</param>
    /// <param name="roots">The scan's roots.</param>
    /// <param name="ignoreCase">With <c>--ignore-case</c> a literal path may name another spelling of an existing one: not checked.</param>
    public static IEnumerable<string> Warnings(string option, IEnumerable<string> patterns, IReadOnlyList<string> roots, bool ignoreCase = false)
    {
        var fullRoots = roots.Select(Full).Where(r => r is not null).Select(r => r!).ToArray();
        foreach (var pattern in patterns)
        {
            if (Problem(pattern, fullRoots, ignoreCase) is { } problem)
            {
                yield return $"warning: {option} '{PathText.Escape(pattern)}' {problem}";
            }
        }
    }

    private static string? Problem(string pattern, string[] roots, bool ignoreCase)
    {
        var relative = pattern.Replace('\\', '/').TrimStart('/');
        var names = relative.Split('/');
        if (names.Any(n => n is "." or ".."))
        {
            return "can never match: globs are matched against paths relative to each root, which hold no '.' or '..'" + Hint(pattern, roots);
        }

        if (names.Length > 1 && names.Any(n => n.Length == 0))
        {
            return "can never match: a path relative to a root has no empty name (no trailing '/', no '//')" + Hint(pattern.TrimEnd('/'), roots);
        }

        // A literal path (no glob character) with a folder in it names one path under each root: none there, it matches nothing.
        var absolute = pattern.StartsWith('/');
        if ((names.Length == 1 && !absolute) || pattern.IndexOfAny(GlobCharacters) >= 0 || ignoreCase || roots.Length == 0 || roots.Any(KernelNames.HasEscapedBytes))
        {
            return null;
        }

        if (roots.Any(r => Exists(Path.Combine(r, relative))))
        {
            return null;
        }

        return $"matches nothing under {(roots.Length == 1 ? "the root" : "any root")}: globs are matched against paths relative to each root" + Hint(pattern, roots);
    }

    /// <summary>The glob relative to the root <paramref name="pattern"/> lies under, read as a path (absolute or from the current folder).</summary>
    private static string Hint(string pattern, string[] roots)
    {
        if (Full(pattern) is not { } full)
        {
            return string.Empty;
        }

        foreach (var root in roots)
        {
            var relative = Path.GetRelativePath(root, full);
            if (relative != "." && relative != ".." && !relative.StartsWith("../", StringComparison.Ordinal) && !Path.IsPathRooted(relative))
            {
                return $" (for {PathText.Escape(full)} use '{PathText.Escape(relative)}')";
            }
        }

        return string.Empty;
    }

    private static string? Full(string path)
    {
        try
        {
            return Path.TrimEndingDirectorySeparator(Path.GetFullPath(path));
        }
        catch (Exception ex) when (ex is ArgumentException or NotSupportedException or PathTooLongException)
        {
            return null;
        }
    }

    private static bool Exists(string path) => File.Exists(path) || Directory.Exists(path) || new FileInfo(path).LinkTarget is not null;
}
