namespace Dedup.Core.Linking;

/// <summary>
/// What happens to each duplicate: the built-in linkers are on <see cref="Linkers"/>, and a linker of your own (a
/// backup tool's "replace with a stub", "record and delete", …) derives from <see cref="Linker"/> or implements this
/// interface. The plan executor does
/// the safety protocol around it (<c>docs/linking.md</c>): before <see cref="Apply"/> is called both files were
/// re-checked against the scan and their bytes compared; the operations on <see cref="LinkerContext"/> re-check
/// them once more right before they change anything and act on the files that were compared, never on a path.
/// </summary>
/// <remarks>
/// An implementation decides only what to do, through <see cref="LinkerContext"/>'s operations (replace with a hard
/// link, a symbolic link, a clone or a file of its own; dedupe; delete; move to the trash), and may refuse with
/// <see cref="LinkerContext.Skip"/>. It cannot skip the checks: they are not its to make.
/// </remarks>
public interface ILinker
{
    /// <summary>
    /// What this linker does to each duplicate, as reports and logs name it (<see cref="DuplicateActionKind.Custom"/> for
    /// your own; a built-in kind makes the plan treat the linker as that built-in, its bytes still compared first).
    /// </summary>
    DuplicateActionKind Kind { get; }

    /// <summary>A short description for plans and logs, such as <c>hard link</c>.</summary>
    string Description { get; }

    /// <summary>
    /// A reason this linker can never act on the pair, known at plan time (such as a hard link across file
    /// systems), or <see langword="null"/>. A refused action is planned, shown in the dry run and skipped.
    /// </summary>
    /// <param name="kept">The file that stays.</param>
    /// <param name="duplicate">The duplicate.</param>
    /// <returns>The reason, or <see langword="null"/>.</returns>
    string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate);

    /// <summary>Acts on one duplicate name, once the executor has re-checked both files and verified their bytes.</summary>
    /// <param name="context">The action and the operations that carry it out safely.</param>
    void Apply(LinkerContext context);
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

    /// <summary>
    /// A linker of your own. It is planned once per name, like <see cref="Delete"/>, and treated as conservatively:
    /// refused across file systems that could show one file twice.
    /// </summary>
    Custom,
}
