namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Windows and macOS (and Linux tests, with a stand-in for the system trash): Delete and MoveToTrash with the portable
/// re-checks; the other operations end the action as Skipped, except where <see cref="WindowsBackend"/> implements them.
/// </summary>
internal class PortableBackend(PortableContext context, LinkerFaults? faults, SystemTrashMove moveToSystemTrash) : ILinkerBackend
{
    protected PortableContext Context => context;

    protected LinkerFaults? Faults => faults;

    public virtual void ReplaceWithHardLink() => throw LinuxOnly("a hard link");

    public virtual void ReplaceWithSymbolicLink(bool relative) => throw LinuxOnly("a symbolic link");

    public virtual void ReplaceWithClone() => throw LinuxOnly("a clone");

    public void DedupeWithKept() => throw LinuxOnly("dedupe");

    public void ReplaceWithFile(Action<Stream> write) => throw LinuxOnly("replacing with a file");

    public void Delete()
    {
        faults?.BeforeDelete?.Invoke(context.DuplicatePath);

        // Last re-check right before the name goes, as on Linux.
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        context.Begin("delete");
        try
        {
            File.Delete(context.DuplicatePath);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw ActionStoppedException.Fail($"cannot delete: {ex.Message}");
        }
    }

    public void MoveToTrash(string? homeTrash)
    {
        faults?.BeforeSystemTrashMove?.Invoke(context.DuplicatePath);
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        context.Begin("trash");
        // Only a journalled run looks for where the file went (the Recycle Bin's $I files): without one, nothing is read.
        context.Trashed(moveToSystemTrash(context.DuplicatePath, context.Journal is null ? null : context.DuplicateIdentity));
    }

    private static ActionStoppedException LinuxOnly(string operation) =>
        ActionStoppedException.Skip($"{operation} is implemented for Linux only; nothing done");
}
