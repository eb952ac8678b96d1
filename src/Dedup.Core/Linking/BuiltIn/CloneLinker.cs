namespace Dedup.Core.Linking.BuiltIn;

/// <summary>Replaces the duplicate with a copy-on-write clone of the kept file.</summary>
internal sealed class CloneLinker : Linker
{
    private static readonly LinkerCapabilities Declared = new()
    {
        Kind = DuplicateActionKind.Clone,
        NeedsSameDevice = true,
        ActsOnFolders = true,
        Probe = ProbedOperation.Clone,
        Platforms = LinkerPlatforms.Linux | LinkerPlatforms.Windows,
        Undo = LinkerUndo.CopyOfKept,
    };

    public override string Description => "copy-on-write clone";

    public override string Verb => "clone";

    internal override LinkerCapabilities Capabilities => Declared;

    public override string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) =>
        kept.Identity.Device != duplicate.Identity.Device
            ? "kept file and duplicate are on different file systems; a clone cannot cross devices (no copy or link is made instead)"
            : null;

    public override void Apply(LinkerContext context) => context.ReplaceWithClone();
}
