using Dedup.Core.Paths;

namespace Dedup.Core.Tests.Linking;

/// <summary>Groups made by hand, given the scanned root a scan would have given them (plans refuse a group without one).</summary>
internal static class RootedGroups
{
    /// <summary>The group with <c>/</c> as its root, which holds every file (its identity is read only when applying on Linux).</summary>
    public static DuplicateGroup Rooted(this DuplicateGroup group) => group with { Roots = [new ScanRoot(AbsolutePath.Parse("/"), default)] };
}
