namespace Dedup.Core.Linking;

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

    /// <summary>
    /// A linker of your own. It is planned once per name, like <see cref="Delete"/>, and treated as conservatively:
    /// refused across file systems that could show one file twice.
    /// </summary>
    Custom,
}
