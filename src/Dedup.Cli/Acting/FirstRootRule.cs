using Dedup.Core;
using Dedup.Core.Linking;
using Dedup.Core.Paths;

namespace Dedup.Cli.Acting;

/// <summary>
/// <c>--keep first-root</c>: a file under (or that is) an earlier PATH stays rather than one under a later PATH. As
/// <see cref="KeepRule.PreferUnder"/> does for folders (a file counts by any of its names), but a PATH may be a file:
/// <see cref="KeepRule.PreferUnder"/> refuses one, and whether each PATH exists is the scan's to say (as a root).
/// </summary>
internal static class FirstRootRule
{
    public static KeepRule Create(string[] roots)
    {
        var resolved = roots.Select(Resolve).ToArray();

        // PATH → its first position: a rank is then one lookup per ancestor of each name, not a pass over every PATH
        // (a --files-from list may give tens of thousands).
        var first = new Dictionary<AbsolutePath, int>();
        for (var i = resolved.Length - 1; i >= 0; i--)
        {
            first[resolved[i]] = i;
        }

        return KeepRule.Custom(
            "under " + string.Join(", ", resolved.Select(r => r.ToDisplayString())),
            (a, b) => Rank(a, first).CompareTo(Rank(b, first)));
    }

    /// <summary>Resolved as the scan resolves its roots; one whose '..' leads nowhere is left as written (the scan refuses it).</summary>
    private static AbsolutePath Resolve(string root)
    {
        try
        {
            return AbsolutePath.Resolve(root);
        }
        catch (DirectoryNotFoundException)
        {
            return AbsolutePath.Parse(root);
        }
    }

    private static int Rank(DuplicateFile file, Dictionary<AbsolutePath, int> first)
    {
        var rank = RankOf(file.Path, first);
        foreach (var link in file.OtherLinks)
        {
            rank = Math.Min(rank, RankOf(link, first));
        }

        return rank;
    }

    /// <summary>The earliest PATH that is <paramref name="path"/> or one of its folders; <see cref="int.MaxValue"/> for none.</summary>
    private static int RankOf(AbsolutePath path, Dictionary<AbsolutePath, int> first)
    {
        var rank = int.MaxValue;
        for (AbsolutePath? node = path; node is not null; node = node.Parent)
        {
            if (first.TryGetValue(node, out var index) && index < rank)
            {
                rank = index;
            }
        }

        return rank;
    }
}
