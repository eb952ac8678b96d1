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
        return KeepRule.Custom(
            "under " + string.Join(", ", resolved.Select(r => r.ToDisplayString())),
            (a, b) => Rank(a, resolved).CompareTo(Rank(b, resolved)));
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

    private static int Rank(DuplicateFile file, AbsolutePath[] roots)
    {
        for (var i = 0; i < roots.Length; i++)
        {
            if (file.Path.IsUnder(roots[i]) || file.OtherLinks.Any(l => l.IsUnder(roots[i])))
            {
                return i;
            }
        }

        return int.MaxValue;
    }
}
