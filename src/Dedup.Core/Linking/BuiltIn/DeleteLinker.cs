namespace Dedup.Core.Linking.BuiltIn;

/// <summary>Deletes the duplicate permanently.</summary>
internal sealed class DeleteLinker : Linker
{
    private static readonly LinkerCapabilities Declared = new()
    {
        Kind = DuplicateActionKind.Delete,
        RemovesName = true,
        ActsOnFolders = true,
        Undo = LinkerUndo.Irreversible,
    };

    public override string Description => "permanent delete";

    public override string Verb => "delete";

    internal override LinkerCapabilities Capabilities => Declared;

    public override void Apply(LinkerContext context) => context.Delete();
}
