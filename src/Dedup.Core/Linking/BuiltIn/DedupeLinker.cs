namespace Dedup.Core.Linking.BuiltIn;

/// <summary>Shares the duplicate's extents with the kept file; the kernel compares the bytes under lock, so the executor does not read them first.</summary>
internal sealed class DedupeLinker : Linker
{
    private static readonly LinkerCapabilities Declared = new()
    {
        Kind = DuplicateActionKind.Dedupe,
        ActsOnData = true,
        VerifiesContentItself = true,
        NeedsSameDevice = true,
        ActsOnFolders = true,
        Probe = ProbedOperation.Dedupe,
        Platforms = LinkerPlatforms.Linux,
        WindowsGap = "Windows has no call that compares and shares two files' clusters under lock (FIDEDUPERANGE); use Linkers.Clone on ReFS, which verifies the bytes itself.",
        Undo = LinkerUndo.NothingVisible,
    };

    public override string Description => "kernel-verified dedupe";

    public override string Verb => "dedupe";

    internal override LinkerCapabilities Capabilities => Declared;

    public override string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) =>
        kept.Identity.Device != duplicate.Identity.Device
            ? "kept file and duplicate are on different file systems; extents cannot be shared across devices"
            : null;

    public override void Apply(LinkerContext context) => context.DedupeWithKept();
}
