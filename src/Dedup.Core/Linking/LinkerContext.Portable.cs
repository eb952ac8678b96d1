using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking;

// Windows and macOS: Delete and MoveToTrash with the portable re-checks (compiled everywhere; the re-checks and the
// delete run in tests on Linux with a stand-in for the system trash; the system trash calls are untested here).
public sealed partial class LinkerContext
{
    private readonly PortableContext? _portable;
    private readonly LinkerFaults? _faults;
    private readonly Action<string>? _moveToSystemTrash;

    internal LinkerContext(DuplicateAction action, PortableContext portable, LinkerFaults? faults, Action<string> moveToSystemTrash)
    {
        Action = action;
        _portable = portable;
        _faults = faults;
        _moveToSystemTrash = moveToSystemTrash;
    }

    private void DeletePortable()
    {
        var context = _portable!;
        _faults?.BeforeDelete?.Invoke(context.DuplicatePath);

        // Last re-check right before the name goes, as on Linux.
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        try
        {
            File.Delete(context.DuplicatePath);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw ActionStoppedException.Fail($"cannot delete: {ex.Message}");
        }
    }

    private void MoveToTrashPortable()
    {
        var context = _portable!;
        _faults?.BeforeSystemTrashMove?.Invoke(context.DuplicatePath);
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        _moveToSystemTrash!(context.DuplicatePath);
    }
}
