namespace Dedup.Core.Linking;

/// <summary>
/// Replaces a duplicate file with something that costs no extra space (a link or a clone of the kept file)
/// or removes it. Obtain one from <see cref="Linkers"/>; every linker follows the safety protocol described
/// in <c>docs/linking.md</c> (re-check, verify, create under a temporary name, rename into place).
/// </summary>
public interface ILinker
{
    /// <summary>What this linker does to each duplicate.</summary>
    DuplicateActionKind Kind { get; }

    /// <summary>A short description for plans and logs, such as <c>hard link</c>.</summary>
    string Description { get; }

    /// <summary>Whether the kernel compares the bytes itself, so no byte-for-byte re-verification is needed.</summary>
    internal bool KernelVerifiesContent { get; }

    /// <summary>A reason this linker can never act on the pair (known at plan time), or <see langword="null"/>.</summary>
    internal string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate);

    /// <summary>Acts on one duplicate name once the executor has re-checked and verified it.</summary>
    internal void Apply(LinkContext context);
}

/// <summary>What a <see cref="DuplicateAction"/> does to a duplicate.</summary>
public enum DuplicateActionKind
{
    /// <summary>Replace the duplicate with a hard link to the kept file.</summary>
    HardLink,

    /// <summary>Replace the duplicate with a symbolic link to the kept file.</summary>
    SymbolicLink,

    /// <summary>Replace the duplicate with a copy-on-write clone of the kept file (FICLONE).</summary>
    Clone,

    /// <summary>Ask the kernel to share the duplicate's extents with the kept file after comparing them (FIDEDUPERANGE).</summary>
    Dedupe,

    /// <summary>Delete the duplicate permanently.</summary>
    Delete,

    /// <summary>
    /// Move the duplicate to the trash: on Linux the freedesktop.org Trash specification's trash, on Windows the
    /// Recycle Bin (<c>SHFileOperationW</c>), on macOS the Trash (<c>NSFileManager</c>).
    /// </summary>
    Trash,
}
