using System.Collections.Concurrent;

namespace Dedup.Core.Paths;

/// <summary>
/// The root node of an <see cref="AbsolutePath"/> (<c>/</c> on Unix, <c>C:\</c> on Windows), one shared instance per
/// root. Internal: a consumer meets it as an <see cref="AbsolutePath"/> whose <see cref="AbsolutePath.Parent"/> is
/// <see langword="null"/>; what is mounted where is the drive topology's to say (<see cref="Topology.StorageDevice"/>).
/// </summary>
internal sealed class AbsolutePathDriveRoot : AbsolutePath
{
    private static readonly ConcurrentDictionary<string, AbsolutePathDriveRoot> s_roots = new(StringComparer.Ordinal);

    private AbsolutePathDriveRoot(string name)
        : base(name, null)
    {
    }

    /// <summary>Returns the shared root node for <paramref name="rootText"/>.</summary>
    /// <param name="rootText">A path root such as <c>/</c> or <c>C:\</c>.</param>
    /// <returns>The shared node.</returns>
    public static AbsolutePathDriveRoot Get(string rootText)
    {
        ArgumentException.ThrowIfNullOrEmpty(rootText);
        return s_roots.GetOrAdd(rootText, static text => new AbsolutePathDriveRoot(text));
    }
}
