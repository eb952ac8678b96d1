namespace Dedup.Core.Linking.BuiltIn;

// The built-in linkers: each decides what to do and calls one public LinkerContext operation, exactly as a linker
// of a user's own would. What each operation does on disk is in Linking/Operations.

/// <summary>Replaces the duplicate with a hard link to the kept file.</summary>
internal sealed class HardLinker : ILinker
{
    public DuplicateActionKind Kind => DuplicateActionKind.HardLink;

    public string Description => "hard link";

    public string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) =>
        kept.Identity.Device != duplicate.Identity.Device
            ? "kept file and duplicate are on different file systems; a hard link cannot cross devices (no other kind of link is made instead)"
            : null;

    public void Apply(LinkerContext context) => context.ReplaceWithHardLink();
}

/// <summary>Replaces the duplicate with a symbolic link (relative or absolute) to the kept file.</summary>
internal sealed class SymbolicLinker(bool relative) : ILinker
{
    public DuplicateActionKind Kind => DuplicateActionKind.SymbolicLink;

    public string Description => relative ? "relative symbolic link" : "absolute symbolic link";

    public string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) => null;

    public void Apply(LinkerContext context) => context.ReplaceWithSymbolicLink(relative);
}

/// <summary>Replaces the duplicate with a copy-on-write clone of the kept file.</summary>
internal sealed class CloneLinker : ILinker
{
    public DuplicateActionKind Kind => DuplicateActionKind.Clone;

    public string Description => "copy-on-write clone";

    public string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) =>
        kept.Identity.Device != duplicate.Identity.Device
            ? "kept file and duplicate are on different file systems; a clone cannot cross devices (no copy or link is made instead)"
            : null;

    public void Apply(LinkerContext context) => context.ReplaceWithClone();
}

/// <summary>Shares the duplicate's extents with the kept file; the kernel compares the bytes under lock, so the executor does not read them first.</summary>
internal sealed class DedupeLinker : ILinker
{
    public DuplicateActionKind Kind => DuplicateActionKind.Dedupe;

    public string Description => "kernel-verified dedupe";

    public string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) =>
        kept.Identity.Device != duplicate.Identity.Device
            ? "kept file and duplicate are on different file systems; extents cannot be shared across devices"
            : null;

    public void Apply(LinkerContext context) => context.DedupeWithKept();
}

/// <summary>Deletes the duplicate permanently.</summary>
internal sealed class DeleteLinker : ILinker
{
    public DuplicateActionKind Kind => DuplicateActionKind.Delete;

    public string Description => "permanent delete";

    public string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) => null;

    public void Apply(LinkerContext context) => context.Delete();
}

/// <summary>Moves the duplicate to the trash; <paramref name="homeTrash"/> (a test seam) replaces <c>$XDG_DATA_HOME/Trash</c>.</summary>
internal sealed class TrashLinker(string? homeTrash) : ILinker
{
    public DuplicateActionKind Kind => DuplicateActionKind.Trash;

    /// <summary>The Windows wording (a constant: the Wine test project checks it, not the tests on Linux).</summary>
    private const string RecycleBin = "move to the Recycle Bin";

    public string Description => OperatingSystem.IsWindows() ? RecycleBin : "move to trash";

    public string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) => null;

    public void Apply(LinkerContext context) => context.MoveToTrash(homeTrash);
}
