using Dedup.Core.Linking.Journal;
using Dedup.Core.Linking.Trash;

namespace Dedup.Core.Linking.Execution;

// Windows and macOS: the linker's Delete and MoveToTrash operations, and hard links on Windows (the others are Linux-only and skip). The re-checks and the
// delete run in tests on Linux with a stand-in for the system trash; the system trash calls are untested here.
internal static partial class PlanExecutor
{
    /// <summary>Applies a plan with the portable re-checks; <paramref name="moveToTrash"/> moves one file to the system trash.</summary>
    internal static DuplicateActionReport ApplyPortable(DuplicateActionPlan plan, Action<string> moveToTrash, CancellationToken cancellationToken, IProgress<ApplyProgress>? progress = null) =>
        ApplyPortableTracked(
            plan,
            (path, _) =>
            {
                moveToTrash(path);
                return null;
            },
            cancellationToken,
            progress);

    /// <summary>As <c>ApplyPortable</c>, with a trash move that says where the file went (journalled for undo).</summary>
    internal static DuplicateActionReport ApplyPortableTracked(DuplicateActionPlan plan, SystemTrashMove moveToTrash, CancellationToken cancellationToken, IProgress<ApplyProgress>? progress = null)
    {
        LinkingLog.ApplyStarting(plan.Logger, plan.Actions.Count, plan.Linker.Description);
        var backend = BackendFor(plan.Faults, moveToTrash); // chosen once for the run
        var run = StartJournal(plan);
        return Apply(plan, run, action => ApplyPortable(plan.Linker, action, backend, run), cancellationToken, progress);
    }

    /// <summary>The operations of this platform: Windows adds links and ReFS clones to the portable Delete and Trash.</summary>
    private static Func<PortableContext, ILinkerBackend> BackendFor(LinkerFaults? faults, SystemTrashMove moveToTrash)
    {
        // Stryker disable once Statement,Block : the Windows branch (the Wine test project runs it)
        if (OperatingSystem.IsWindows())
        {
            return WindowsBackends(faults, moveToTrash);
        }

        return context => new PortableBackend(context, faults, moveToTrash);
    }

    [System.Runtime.Versioning.SupportedOSPlatform("windows")]
    private static Func<PortableContext, ILinkerBackend> WindowsBackends(LinkerFaults? faults, SystemTrashMove moveToTrash) =>
        context => new WindowsBackend(context, faults, moveToTrash);

    /// <summary>
    /// A failed move to the system trash, saying whether the duplicate is still at its path: the system call is
    /// one move of one file, but only the file system can tell what happened.
    /// </summary>
    internal static ActionStoppedException TrashMoveFailed(string path, string reason) =>
        ActionStoppedException.Fail(File.Exists(path) ? $"{reason}; duplicate unchanged" : $"{reason}; the duplicate is no longer at its path");

    private static void ApplyPortable(Linker linker, DuplicateAction action, Func<PortableContext, ILinkerBackend> backend, JournalRun? run)
    {
        using var context = new PortableContext(action) { Journal = run };
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        context.VerifyContent();
        Run(linker, new LinkerContext(action, backend(context)));
    }

    // Stryker disable all : Windows and macOS only: Apply passes this on those platforms alone
    private static TrashedLocation? MoveToSystemTrash(string path, Enumeration.FileIdentity? identity)
    {
        if (OperatingSystem.IsWindows())
        {
            return RecycleBin.Move(path, identity);
        }

        if (OperatingSystem.IsMacOS())
        {
            return MacTrash.Move(path) is { } moved ? new TrashedLocation(moved, null) : null;
        }

        throw ActionStoppedException.Fail("no system trash is implemented for this platform; not moved");
    }

    // Stryker restore all
}
