namespace Dedup.Core.Linking.BuiltIn;

/// <summary>Replaces the duplicate with a hard link to the kept file.</summary>
internal sealed class HardLinker : Linker
{
    private static readonly LinkerCapabilities Declared = new()
    {
        Kind = DuplicateActionKind.HardLink,
        SharesKeptMetadata = true,
        PlanNote = "note: hard links give each duplicate name the kept file's modification time, permissions and extended attributes",
        NeedsSameDevice = true,
        ActsOnFolders = true,
        Platforms = LinkerPlatforms.Linux | LinkerPlatforms.Windows,
        Undo = LinkerUndo.CopyOfKept,
    };

    public override string Description => "hard link";

    public override string Verb => "hard-link";

    internal override LinkerCapabilities Capabilities => Declared;

    public override string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) =>
        kept.Identity.Device != duplicate.Identity.Device
            ? "kept file and duplicate are on different file systems; a hard link cannot cross devices (no other kind of link is made instead)"
            : null;

    public override void Apply(LinkerContext context) => context.ReplaceWithHardLink();
}
