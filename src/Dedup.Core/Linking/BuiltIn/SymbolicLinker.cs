namespace Dedup.Core.Linking.BuiltIn;

/// <summary>Replaces the duplicate with a symbolic link (relative or absolute) to the kept file.</summary>
internal sealed class SymbolicLinker(bool relative) : Linker
{
    private static readonly LinkerCapabilities Declared = new()
    {
        Kind = DuplicateActionKind.SymbolicLink,
        SharesKeptMetadata = true,
        PlanNote = "note: symbolic links show the kept file's modification time, permissions and extended attributes under each duplicate name",
        ActsOnFolders = true,
        Platforms = LinkerPlatforms.Linux | LinkerPlatforms.Windows,
        Undo = LinkerUndo.CopyOfKept,
    };

    public override string Description => relative ? "relative symbolic link" : "absolute symbolic link";

    public override string Verb => "symlink";

    internal override LinkerCapabilities Capabilities => Declared;

    public override void Apply(LinkerContext context) => context.ReplaceWithSymbolicLink(relative);
}
