using Dedup.Core.Linking.BuiltIn;

namespace Dedup.Core.Linking;

/// <summary>
/// The built-in <see cref="Linker"/>s, see <c>docs/linking.md</c>. All are implemented for Linux; on Windows all but
/// <see cref="Dedupe"/> (clones on ReFS only; tested under Wine, not on Windows proper); on macOS only
/// <see cref="Delete"/> and <see cref="Trash"/> (untested). <see cref="DuplicateActionPlanBuilder.Build"/> refuses the others.
/// </summary>
public static class Linkers
{
    private static readonly HardLinker HardLinker = new();
    private static readonly CloneLinker CloneLinker = new();
    private static readonly DedupeLinker DedupeLinker = new();
    private static readonly DeleteLinker DeleteLinker = new();
    private static readonly TrashLinker TrashLinker = new(homeTrash: null);

    /// <summary>
    /// Every built-in linker, the one registration of a built-in action: what a linker of the user's own that reports a
    /// built-in <see cref="Linker.Kind"/> (a wrapper of a built-in) is taken to do.
    /// </summary>
    internal static IReadOnlyList<Linker> BuiltIn { get; } = [HardLinker, CloneLinker, DedupeLinker, DeleteLinker, TrashLinker, new SymbolicLinker(relative: true)];

    /// <summary>Replaces each duplicate with a hard link to the kept file; refused across file systems.</summary>
    public static Linker HardLink => HardLinker;

    /// <summary>Replaces each duplicate with a copy-on-write clone of the kept file (btrfs, XFS; ReFS block cloning on Windows); refused where unsupported.</summary>
    public static Linker Clone => CloneLinker;

    /// <summary>Asks the kernel to compare and share extents (FIDEDUPERANGE); a file changed since the scan is never altered.</summary>
    public static Linker Dedupe => DedupeLinker;

    /// <summary>Deletes each duplicate permanently once its bytes are verified to equal the kept file's.</summary>
    public static Linker Delete => DeleteLinker;

    /// <summary>
    /// Moves each duplicate to the trash once its bytes are verified to equal the kept file's. Linux: the
    /// freedesktop.org trash (home trash or <c>$topdir/.Trash</c>). Windows: the Recycle Bin, with undo and without
    /// any dialog; drives without one (network, removable) are refused, and Windows itself deletes a file too large
    /// for the Recycle Bin permanently. macOS: the Trash, through <c>NSFileManager</c>.
    /// </summary>
    public static Linker Trash => TrashLinker;

    /// <summary>Replaces each duplicate with a symbolic link to the kept file (on Windows: with Developer Mode or the symbolic-link privilege, else skipped).</summary>
    /// <param name="relative">Whether the link's target is relative to the duplicate's folder (default) or absolute.</param>
    /// <returns>The linker.</returns>
    public static Linker SymbolicLink(bool relative = true) => new SymbolicLinker(relative);
}
