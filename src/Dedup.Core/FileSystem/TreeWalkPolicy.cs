using Dedup.Core.Paths;

namespace Dedup.Core.FileSystem;

/// <summary>
/// How a walk from a root reaches what lies below it (<see cref="RootedTree"/>): which links it follows, whether a link
/// found where a folder or file was listed is refused, and how deep it goes. A root itself is always opened by its path,
/// links followed: a root may be a link, and it is where the user pointed.
/// </summary>
/// <param name="FollowLinks">Whether a folder the listing reached through a symbolic link (an
/// <see cref="AbsolutePathSymlinkPoint"/>) is reached through it again. A folder listed as a folder is never reached
/// through a link, whatever this says: a link in its place is one swapped in since.</param>
/// <param name="RefuseSwappedLinks">Whether a step refused (a link, or anything else, where a folder was listed) ends the
/// walk there: nothing below it is reached by a longer path, which would follow a link swapped in, and a path of several
/// names below a root's descriptor may hold no link at all (<see cref="RootedTree.OpenBeneath"/>). A scan that does not
/// follow links, and every action; a scan following links may reach such a folder by its whole path instead.</param>
/// <param name="MaxDepth">Folders deeper than this below their root are not walked to (left to a later stage).</param>
internal readonly record struct TreeWalkPolicy(bool FollowLinks, bool RefuseSwappedLinks, int MaxDepth)
{
    /// <summary>No limit on depth.</summary>
    public const int Unlimited = int.MaxValue;

    /// <summary>A scan's walk: links followed where the listing followed them (<c>--follow-symlinks</c>), and otherwise a link swapped in since the listing refused.</summary>
    public static TreeWalkPolicy ForScan(bool followLinks, int maxDepth = Unlimited) => new(followLinks, !followLinks, maxDepth);

    /// <summary>Every action's walk: no link followed below a root, whatever the scan followed; every swapped link refused.</summary>
    public static TreeWalkPolicy ForActions => new(FollowLinks: false, RefuseSwappedLinks: true, Unlimited);

    /// <summary>Whether the walk goes through a link at <paramref name="folder"/>: only where the listing went through one, and only when following links.</summary>
    public bool Follows(AbsolutePath folder) => FollowLinks && folder is AbsolutePathSymlinkPoint;
}
