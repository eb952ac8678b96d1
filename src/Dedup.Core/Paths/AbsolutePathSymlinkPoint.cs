namespace Dedup.Core.Paths;

/// <summary>
/// A path node that is a symbolic link which the scan followed: entries found through the link hang
/// below this node, so their paths show the link, while <see cref="Target"/> records where it points. Internal: the
/// walk reads the node kind (<c>TreeWalkPolicy.Follows</c>); a consumer meets it as an <see cref="AbsolutePath"/>.
/// </summary>
internal sealed class AbsolutePathSymlinkPoint : AbsolutePath
{
    internal AbsolutePathSymlinkPoint(string name, AbsolutePath parent, string target)
        : base(name, parent, nameIsInterned: true)
    {
        Target = target;
    }

    /// <summary>The link's target text as stored in the link (may be relative).</summary>
    public string Target { get; }

    /// <summary>The link's target resolved to an absolute path.</summary>
    public AbsolutePath ResolvedTarget => Parse(System.IO.Path.IsPathRooted(Target) ? Target : System.IO.Path.Combine(Parent!.ToString(), Target));

    /// <summary>Creates a symlink node for a link found on disk.</summary>
    /// <param name="parent">The folder holding the link.</param>
    /// <param name="name">The link's name.</param>
    /// <param name="target">The link's target text.</param>
    /// <returns>The new node.</returns>
    public static AbsolutePathSymlinkPoint Create(AbsolutePath parent, string name, string target)
    {
        ArgumentNullException.ThrowIfNull(parent);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentNullException.ThrowIfNull(target);
        return new AbsolutePathSymlinkPoint(name, parent, target);
    }
}
