using Dedup.Core.Topology;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// Decides which file of a duplicate group stays. Rules are combined in order: the first rule that prefers
/// one file over another decides. When the rules leave several files tied for first place, nothing is guessed:
/// the group is left alone and listed in <see cref="DuplicateActionPlan.UndecidedGroups"/>. Add
/// <see cref="PathOrder"/> last to always decide.
/// </summary>
public sealed class KeepRule
{
    private readonly Comparison<DuplicateFile> _compare;

    private readonly Func<string?>? _validate;

    private KeepRule(string description, Comparison<DuplicateFile> compare, Func<string?>? validate = null)
    {
        Description = description;
        _compare = compare;
        _validate = validate;
    }

    /// <summary>Keeps the file modified longest ago.</summary>
    public static KeepRule Oldest { get; } = new("oldest", (a, b) => a.LastWriteTimeUtc.CompareTo(b.LastWriteTimeUtc));

    /// <summary>Keeps the most recently modified file.</summary>
    public static KeepRule Newest { get; } = new("newest", (a, b) => b.LastWriteTimeUtc.CompareTo(a.LastWriteTimeUtc));

    /// <summary>Keeps the file with the shortest path (in characters).</summary>
    public static KeepRule ShortestPath { get; } = new("shortest path", (a, b) => a.Path.Length.CompareTo(b.Path.Length));

    /// <summary>
    /// A tie-breaker that always decides, so that originals stay: paths without hidden folders first, then folder by folder
    /// from the root, each name compared by the kernel's bytes, first without its extension, then whole. So
    /// <c>Photos/a.jpg</c> stays rather than <c>Photos (copy)/a.jpg</c>, <c>big-a.bin</c> rather than <c>big-a-copy.bin</c>,
    /// and <c>proj/</c> rather than <c>proj-copy-final/proj/</c>. Two paths tie only when equal.
    /// It is the default when a planner has no rule; with other rules, add it last to decide every group.
    /// </summary>
    public static KeepRule PathOrder { get; } = new("first in path order", (a, b) => KeepOrder.Compare(a.Path, b.Path));

    /// <summary>A short description, such as <c>oldest</c>.</summary>
    public string Description { get; }

    /// <summary>
    /// Keeps a file under the first of <paramref name="folders"/> that holds one (reference folders): files under an
    /// earlier folder win over files under a later one, and files under any of them win over files elsewhere.
    /// A file counts as under a folder when any of its names is, decided as for protected folders: by the path, and on
    /// Linux also by identity (a folder on the way is the named folder's device and inode, links followed).
    /// </summary>
    /// <param name="folders">
    /// Folders in order of preference; each must exist when the planner is built. A <c>..</c> is resolved as the kernel
    /// resolves it (see <see cref="AbsolutePath.Resolve"/>), never by dropping the name before it.
    /// </param>
    /// <returns>The rule.</returns>
    /// <remarks>A folder that does not exist (a typo) makes <see cref="DuplicateActionPlanBuilder.Build"/> throw instead of silently preferring nothing.</remarks>
    public static KeepRule PreferUnder(params string[] folders)
    {
        ArgumentNullException.ThrowIfNull(folders);
        var parsed = ResolveFolders(folders, out var unresolved);
        // One check per folder, made at the first comparison (the folders' identities are read then, as a plan reads its protected folders').
        var checks = new Lazy<ProtectionCheck[]>(() => parsed.Select(f => Protection.Under(f).Begin()).ToArray());
        return new KeepRule(
            "under " + string.Join(", ", parsed.Select(p => p.ToDisplayString())),
            (a, b) => Rank(a, checks.Value).CompareTo(Rank(b, checks.Value)),
            () => FolderProblem("keep rule's folder", parsed, unresolved));
    }

    /// <summary>Folders a user names, resolved as the kernel resolves them; <paramref name="unresolved"/> is the first whose <c>..</c> climbs out of nothing.</summary>
    internal static AbsolutePath[] ResolveFolders(IReadOnlyList<string> folders, out string? unresolved)
    {
        var parsed = new AbsolutePath[folders.Count];
        unresolved = null;
        for (var i = 0; i < folders.Count; i++)
        {
            try
            {
                parsed[i] = AbsolutePath.Resolve(folders[i]);
            }
            catch (DirectoryNotFoundException)
            {
                // "missing/..": the kernel finds nothing there, so neither may the rule (the lexical reading could
                // name a real folder). Refused when the planner is built, like any folder that does not exist.
                parsed[i] = AbsolutePath.Parse(folders[i]);
                unresolved ??= folders[i];
            }
        }

        return parsed;
    }

    /// <summary>Why folders a user named cannot be used: the first that is missing, a file or out of reach, said as it is.</summary>
    /// <param name="what">What the folders are, such as <c>keep rule's folder</c>.</param>
    /// <param name="folders">The folders, resolved.</param>
    /// <param name="unresolved">The first folder whose <c>..</c> led nowhere, or <see langword="null"/>.</param>
    internal static string? FolderProblem(string what, AbsolutePath[] folders, string? unresolved)
    {
        if (unresolved is not null)
        {
            return $"The {what} '{PathText.Escape(unresolved)}' does not exist (its '..' climbs out of a folder that does not).";
        }

        foreach (var folder in folders)
        {
            switch (PathKinds.Of(folder.ToString(), out var reason))
            {
                case PathKind.File:
                    return $"The {what} '{folder.ToDisplayString()}' is a file, not a folder.";
                case PathKind.Missing:
                    return $"The {what} '{folder.ToDisplayString()}' does not exist.";
                case PathKind.AccessDenied or PathKind.Unreachable:
                    return $"The {what} '{folder.ToDisplayString()}' cannot be reached: {PathText.EscapeMessage(reason ?? string.Empty)}";
            }
        }

        return null;
    }

    /// <summary>
    /// Keeps a file whose path starts (ordinally) with the first matching prefix of <paramref name="prefixes"/>;
    /// earlier prefixes win over later ones and any prefix wins over none.
    /// </summary>
    /// <param name="prefixes">Path prefixes in order of preference.</param>
    /// <returns>The rule.</returns>
    public static KeepRule PreferPrefix(params string[] prefixes)
    {
        ArgumentNullException.ThrowIfNull(prefixes);
        var copy = prefixes.ToArray();
        return new KeepRule("prefix " + string.Join(", ", copy.Select(PathText.Escape)), (a, b) => PrefixRank(a, copy).CompareTo(PrefixRank(b, copy)));
    }

    /// <summary>A rule of your own: return a negative number to keep <c>x</c> rather than <c>y</c>, positive for <c>y</c>, zero for no preference.</summary>
    /// <param name="description">A short description for plans.</param>
    /// <param name="compare">The comparison.</param>
    /// <returns>The rule.</returns>
    public static KeepRule Custom(string description, Comparison<DuplicateFile> compare)
    {
        ArgumentException.ThrowIfNullOrEmpty(description);
        ArgumentNullException.ThrowIfNull(compare);
        return new KeepRule(description, compare);
    }

    /// <inheritdoc />
    public override string ToString() => Description;

    internal int Compare(DuplicateFile x, DuplicateFile y) => _compare(x, y);

    /// <summary>Why this rule cannot be used (checked when the planner is built), or <see langword="null"/>.</summary>
    internal string? Validate() => _validate?.Invoke();

    /// <summary>Picks the file to keep: the first rule that decides; <see langword="null"/> when the rules leave a tie for first place.</summary>
    internal static DuplicateFile? SelectKept(IReadOnlyList<DuplicateFile> files, IReadOnlyList<KeepRule> rules)
        => SelectKept(files, rules, TrashLocator.Create().IsDisposable);

    /// <summary>As above, with the plan's test for copies that are never kept (a trash's or a temporary file), asked once per file.</summary>
    internal static DuplicateFile? SelectKept(IReadOnlyList<DuplicateFile> files, IReadOnlyList<KeepRule> rules, Func<DuplicateFile, bool> isDisposable)
        => SelectKept(files, rules, isDisposable, static _ => false);

    /// <summary>
    /// As above; a protected copy (<see cref="DuplicateActionPlanBuilder.Protect"/>), when there is one, is the one kept
    /// whatever the rules and the trash say (the rules choose among the protected), each asked once per file.
    /// </summary>
    internal static DuplicateFile? SelectKept(IReadOnlyList<DuplicateFile> files, IReadOnlyList<KeepRule> rules, Func<DuplicateFile, bool> isDisposable, Func<DuplicateFile, bool> isProtected)
    {
        // One rank per file: protected first (0), then ordinary (1), then disposable (2).
        var rank = new int[files.Count];
        for (var i = 0; i < files.Count; i++)
        {
            rank[i] = isProtected(files[i]) ? 0 : isDisposable(files[i]) ? 2 : 1;
        }

        var best = 0;
        for (var i = 1; i < files.Count; i++)
        {
            if (CompareAll(files, rank, i, best, rules) < 0)
            {
                best = i;
            }
        }

        for (var i = 0; i < files.Count; i++)
        {
            if (i != best && CompareAll(files, rank, i, best, rules) == 0)
            {
                return null;
            }
        }

        return files[best];
    }

    /// <summary>Whether a file lies in a trash folder (by its names and its real location) or is one of our temporary files.</summary>
    internal static bool IsDisposable(DuplicateFile file) => TrashLocator.Create().IsDisposable(file);

    private static int CompareAll(IReadOnlyList<DuplicateFile> files, int[] rank, int x, int y, IReadOnlyList<KeepRule> rules)
    {
        // Whatever the rules say, a copy in a trash folder or a leftover temporary file is never the one
        // kept (emptying the trash would then lose the data), and a protected copy always is.
        var order = rank[x].CompareTo(rank[y]);
        if (order != 0)
        {
            return order;
        }

        foreach (var rule in rules)
        {
            var decision = rule.Compare(files[x], files[y]);
            if (decision != 0)
            {
                return decision;
            }
        }

        return 0;
    }

    private static int Rank(DuplicateFile file, ProtectionCheck[] folders)
    {
        // The checks remember each folder's verdict: one rule may serve planners on several threads.
        lock (folders)
        {
            for (var i = 0; i < folders.Length; i++)
            {
                if (folders[i].IsAtOrUnder(file))
                {
                    return i;
                }
            }
        }

        return int.MaxValue;
    }

    private static int PrefixRank(DuplicateFile file, string[] prefixes)
    {
        var path = file.Path.ToString();
        for (var i = 0; i < prefixes.Length; i++)
        {
            if (path.StartsWith(prefixes[i], StringComparison.Ordinal))
            {
                return i;
            }
        }

        return int.MaxValue;
    }
}
