namespace Dedup.Core.Linking;

// Windows and macOS: Delete and Trash only (Build() refuses the other linkers there). The re-checks and the
// delete run in tests on Linux with a stand-in for the system trash; the system trash calls are untested here.
internal static partial class PlanExecutor
{
    /// <summary>Applies a Delete or Trash plan with the portable re-checks; <paramref name="moveToTrash"/> moves one file to the system trash.</summary>
    internal static DuplicateActionReport ApplyPortable(DuplicateActionPlan plan, Action<string> moveToTrash, CancellationToken cancellationToken) =>
        Apply(plan, action => ApplyPortable(plan.Linker.Kind, action, plan.Faults, moveToTrash), cancellationToken);

    /// <summary>
    /// A failed move to the system trash, saying whether the duplicate is still at its path: the system call is
    /// one move of one file, but only the file system can tell what happened.
    /// </summary>
    internal static ActionStoppedException TrashMoveFailed(string path, string reason) =>
        ActionStoppedException.Fail(File.Exists(path) ? $"{reason}; duplicate unchanged" : $"{reason}; the duplicate is no longer at its path");

    private static void ApplyPortable(DuplicateActionKind kind, DuplicateAction action, LinkerFaults? faults, Action<string> moveToTrash)
    {
        if (kind is not (DuplicateActionKind.Delete or DuplicateActionKind.Trash))
        {
            throw ActionStoppedException.Skip($"{kind} is implemented for Linux only; nothing done");
        }

        using var context = new PortableContext(action);
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        context.VerifyContent();

        if (kind == DuplicateActionKind.Delete)
        {
            faults?.BeforeDelete?.Invoke(context.DuplicatePath);
        }
        else
        {
            faults?.BeforeSystemTrashMove?.Invoke(context.DuplicatePath);
        }

        // Last re-check right before the name goes, as on Linux.
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        if (kind == DuplicateActionKind.Trash)
        {
            moveToTrash(context.DuplicatePath);
            return;
        }

        try
        {
            File.Delete(context.DuplicatePath);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw ActionStoppedException.Fail($"cannot delete: {ex.Message}");
        }
    }

    private static void MoveToSystemTrash(string path)
    {
        if (OperatingSystem.IsWindows())
        {
            RecycleBin.Move(path);
        }
        else if (OperatingSystem.IsMacOS())
        {
            _ = MacTrash.Move(path);
        }
        else
        {
            throw ActionStoppedException.Fail("no system trash is implemented for this platform; not moved");
        }
    }
}
