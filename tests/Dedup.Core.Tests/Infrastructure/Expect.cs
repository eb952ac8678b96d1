namespace Dedup.Core.Tests.Infrastructure;

/// <summary>Builds expected groups in the same canonical form as <see cref="Scan.Canonical"/>.</summary>
public static class Expect
{
    /// <summary>One group: its files' primary paths, sorted ordinally and joined.</summary>
    public static string Group(params string[] paths) => string.Join(" | ", paths.Order(StringComparer.Ordinal));

    /// <summary>Several groups, sorted as <see cref="Scan.Canonical"/> sorts them.</summary>
    public static List<string> Groups(params string[][] groups) =>
        groups.Select(g => Group(g)).Order(StringComparer.Ordinal).ToList();

    /// <summary>
    /// A stricter form than <see cref="Scan.Canonical"/>: each file as its primary path plus its other
    /// links in the order the library reports them, so link folding and link order are checked too.
    /// </summary>
    public static List<string> WithLinks(IEnumerable<DuplicateGroup> groups) =>
        groups.Select(g => string.Join(" | ", g.Files.Select(Describe).Order(StringComparer.Ordinal)))
            .Order(StringComparer.Ordinal)
            .ToList();

    public static string Describe(DuplicateFile file) =>
        file.OtherLinks.Count == 0
            ? file.Path.ToString()
            : $"{file.Path} [{string.Join(", ", file.OtherLinks.Select(l => l.ToString()))}]";
}
