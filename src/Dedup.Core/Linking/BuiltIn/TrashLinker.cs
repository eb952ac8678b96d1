namespace Dedup.Core.Linking.BuiltIn;

/// <summary>Moves the duplicate to the trash; <paramref name="homeTrash"/> (a test seam) replaces <c>$XDG_DATA_HOME/Trash</c>.</summary>
internal sealed class TrashLinker(string? homeTrash) : Linker
{
    /// <summary>The Windows wording (a constant: the Wine test project checks it, not the tests on Linux).</summary>
    private const string RecycleBin = "move to the Recycle Bin";

    private static readonly LinkerCapabilities Declared = new()
    {
        Kind = DuplicateActionKind.Trash,
        RemovesName = true,
        ActsOnFolders = true,
        TakesSymbolicLinks = false,
        Undo = LinkerUndo.FromTrash,
    };

    public override string Description => OperatingSystem.IsWindows() ? RecycleBin : "move to trash";

    public override string Verb => "trash";

    internal override LinkerCapabilities Capabilities => Declared;

    public override void Apply(LinkerContext context) => context.MoveToTrash(homeTrash);
}
