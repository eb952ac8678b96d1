using System.Globalization;
using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// Takes journalled actions back on Linux, under the forward actions' protocol: every folder is opened from a root the
/// run's line names, checked by identity and walked without following links (<see cref="FolderHandle.TryOpenBeneath"/>);
/// every decision is made by inspecting the name (its identity, size and modification time against the journal's
/// <c>before</c>, <c>after</c> and <c>undone</c>), never from outcome lines. The same decisions serve the plan (read
/// only) and the run.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class UndoEngine : IDisposable
{
    private readonly JournalReader _journal;
    private readonly string _journalPath;
    private readonly Dictionary<string, RootHandles> _roots = new(StringComparer.Ordinal);
    private readonly HashSet<string> _cleaned = new(StringComparer.Ordinal);
    private readonly List<(JournalStep Step, JournalRun Run, ulong Device, ulong Inode)> _folderTimes = [];
    private readonly uint _euid = Libc.GetEuid();
    private UndoJournalWriter? _writer;

    public UndoEngine(JournalReader journal, string journalPath)
    {
        _journal = journal;
        _journalPath = journalPath;
    }

    /// <summary>What applying found worth saying beside the outcomes (leftover temporary files left alone).</summary>
    public List<string> Notes { get; } = [];

    /// <summary>What undo would do for <paramref name="step"/>: <see langword="null"/> to restore it, else the outcome and its reason. Changes nothing.</summary>
    public (UndoOutcome? Outcome, string? Reason) Inspect(JournalStep step, JournalRun? run)
    {
        if (Refusal(step, run) is { } refused)
        {
            return refused;
        }

        using var folder = OpenFolder(run!, step.Path, out var name, out var problem);
        if (folder is null && InRemovedFolder(step))
        {
            return (null, null); // its folder is recreated first (newest first), then it is restored into it
        }

        return folder is null ? (UndoOutcome.LeftAlone, problem) : Decide(step, run!, folder, name).Decision;
    }

    /// <summary>
    /// Restores <paramref name="step"/> if inspection says so, or says why not; after the last step of the plan in a
    /// folder, sets the folder's times back (see <see cref="FolderTimesAfter"/>), a note on the step when it did not.
    /// </summary>
    public (UndoOutcome Outcome, string? Reason) Apply(JournalStep step, JournalRun? run)
    {
        var (outcome, reason) = ApplyStep(step, run);
        return (outcome, FolderTimesAfter(step, run, outcome, reason));
    }

    private (UndoOutcome Outcome, string? Reason) ApplyStep(JournalStep step, JournalRun? run)
    {
        if (Refusal(step, run) is { } refused)
        {
            return (refused.Outcome, refused.Reason);
        }

        using var folder = OpenFolder(run!, step.Path, out var name, out var problem);
        if (folder is null)
        {
            return (UndoOutcome.LeftAlone, problem);
        }

        var seen = Seen(folder);
        if (_cleaned.Add(AbsolutePath.Parse(folder.Path).ToString()) && RemoveLeftovers(folder, run!) && seen is { } cutShort)
        {
            _cutShort.Add(cutShort); // a step of ours was cut short in it after the journal's last record of it
        }

        var (decision, now) = Decide(step, run!, folder, name);
        if (decision.Outcome is { } outcome)
        {
            // A trash move killed before its rename left its info file (reserved first): it goes too.
            if (outcome is UndoOutcome.AlreadyRestored or UndoOutcome.WasNotDone && step.Kind == UndoKinds.Trash)
            {
                RemoveInfoFile(step);
            }

            if (outcome == UndoOutcome.AlreadyRestored && step.Copies && step.Before.Flags != 0)
            {
                // An undo killed between its rename and FS_IOC_SETFLAGS restored the name without its inode flags.
                return (outcome, Join(decision.Reason, RestoreFlags(folder, name, now, step.Before.Flags)));
            }

            return (outcome, decision.Reason);
        }

        try
        {
            return step.Kind switch
            {
                UndoKinds.Trash => RestoreFromTrash(step, folder, name),
                UndoKinds.RemoveFolder => RecreateFolder(step, run!, folder, name),
                UndoKinds.RemoveLink => RecreateLink(step, folder, name),
                _ => RestoreCopy(step, run!, folder, name, now),
            };
        }
        catch (IOException ex)
        {
            return (UndoOutcome.Failed, ex.Message);
        }
    }

    /// <summary>The file system a step's copy is written to: its device, a folder on it, the bytes free there and its block size.</summary>
    public (ulong Device, string Folder, long Available, long Block)? FileSystemOf(JournalStep step, JournalRun run)
    {
        using var folder = OpenFolder(run, step.Path, out _, out _);
        if (folder is null || Libc.FStat(folder.Fd, out var status) != 0)
        {
            return null;
        }

        var available = Libc.AvailableBytes(folder.Fd, out _);
        return (status.Device, folder.Path, Math.Max(0, available), Libc.BlockSize(folder.Fd));
    }

    /// <summary>
    /// The restored folders get their times last: restoring the files inside moved them. A folder whose own times its
    /// files' steps gave back (<see cref="FolderTimesAfter"/>) keeps those: they are the ones it had before the run.
    /// </summary>
    public void Finish()
    {
        foreach (var (step, run, device, inode) in _folderTimes)
        {
            using var parent = OpenFolder(run, step.Path, out var name, out _);
            if (parent is not null && Libc.LStatAt(parent.Fd, name, out var status) == 0 && status.IsDirectory && RootedTree.IsFile(status, device, inode))
            {
                if (!_timesDecided.Contains((device, inode)))
                {
                    _ = SetTimes(parent.Fd, name, step.Before, followLast: false); // else the times its files' steps recorded
                }

                if (step.Before.Flags != 0)
                {
                    // Last, as for a file: a flag such as immutable would have kept its files from coming back. A real
                    // open (the ioctl refuses an O_PATH descriptor), checked to be the folder undo made.
                    var fd = Libc.OpenAt(parent.Fd, name, Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0);
                    if (fd >= 0)
                    {
                        if (Libc.FStat(fd, out var opened) == 0 && RootedTree.IsFile(opened, device, inode) && SetFlags(fd, step.Before.Flags) is { } note)
                        {
                            Notes.Add($"{PathText.Escape(step.Path)}: {note}");
                        }

                        _ = Libc.Close(fd);
                    }
                }
            }
        }

        _folderTimes.Clear();
    }

    public void Dispose()
    {
        _writer?.Dispose();
        foreach (var roots in _roots.Values)
        {
            roots.Dispose();
        }
    }

    /// <summary>The refusals that need no look at the disk: a delete, a run without roots, an unknown kind, a missing field.</summary>
    private (UndoOutcome Outcome, string Reason)? Refusal(JournalStep step, JournalRun? run)
    {
        if (step.Kind == UndoKinds.Delete)
        {
            return (UndoOutcome.Irreversible, "deleted permanently; its bytes are gone (use --trash to keep a way back)");
        }

        if (!UndoKinds.IsKnown(step.Kind))
        {
            return (UndoOutcome.LeftAlone, $"the action kind '{step.Kind}' is not one undo knows");
        }

        if (run is null)
        {
            return (UndoOutcome.LeftAlone, $"no run line names the roots of run {step.Run}; nothing is done outside a run's roots");
        }

        if (step.Kind == UndoKinds.Trash && step.Trash is null)
        {
            return (UndoOutcome.LeftAlone, "the journal does not say where in the trash it went");
        }

        if (step.Kind is not UndoKinds.Trash && !step.Before.HasMetadata)
        {
            return (UndoOutcome.LeftAlone, "the journal does not record its mode, owner and times (logged where undo cannot restore them)");
        }

        if (step.Copies && step.Kind != UndoKinds.SymbolicLink && step.After is null)
        {
            return (UndoOutcome.LeftAlone, "the journal does not say what the name led to after the action");
        }

        if (step.Kind == UndoKinds.SymbolicLink && (step.Kept is null || step.KeptFile is null))
        {
            return (UndoOutcome.LeftAlone, "the journal does not name the kept file the link leads to");
        }

        return step.Kind == UndoKinds.RemoveLink && step.Target is null ? (UndoOutcome.LeftAlone, "the journal does not give the removed link's text") : null;
    }

    /// <summary>Sets the logged inode flags on the restored file the name still leads to; a note when they could not be set.</summary>
    private static string? RestoreFlags(FolderHandle folder, string name, in StatxBuffer restored, int flags)
    {
        var fd = RootedTree.OpenFile(folder.Fd, name);
        if (fd < 0)
        {
            return $"its inode flags (chattr) could not be checked: {Libc.Message(Libc.LastErrno)}";
        }

        try
        {
            return Libc.FStat(fd, out var opened) == 0 && RootedTree.IsSame(opened, restored) ? SetFlags(fd, flags) : "changed while its inode flags were being set; left as it is";
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    /// <summary>Whether a later step of the same run removed a folder that holds <paramref name="step"/>'s name (a folder action).</summary>
    private bool InRemovedFolder(JournalStep step)
    {
        var path = AbsolutePath.Parse(step.Path);
        return _journal.Steps.Any(s => s.Run == step.Run && s.Seq > step.Seq && s.Kind == UndoKinds.RemoveFolder && path.IsUnder(AbsolutePath.Parse(s.Path)));
    }

    /// <summary>Opens the folder of <paramref name="path"/> from the run's roots (see <see cref="FolderHandle.TryOpenBeneath"/>).</summary>
    private FolderHandle? OpenFolder(JournalRun run, string path, out string name, out string problem)
    {
        var file = AbsolutePath.Parse(path);
        name = file.Name;
        if (file.Parent is not { } parent)
        {
            problem = "not a name in a folder";
            return null;
        }

        // A file root (named as a file argument or in --files-from): its folder, checked by identity; the name itself
        // was changed by the action, and the step's own checks decide what it must lead to now.
        var folder = ScanRoot.Holding(run.Roots, parent) is null && ScanRoot.Named(run.Roots, file) is { } fileRoot
            ? FolderHandle.TryOpenFileRoot(fileRoot, out problem, checkFile: false)
            : FolderHandle.TryOpenBeneath(run.Roots, parent, out problem, RootsOf(run), file);
        problem = folder is null ? $"folder {problem}; nothing is done outside the run's roots" : problem;
        return folder;
    }

    /// <summary>Whether <paramref name="status"/> is what an earlier undo gave the name (an <c>undone</c> line's identity).</summary>
    /// <remarks>A file must also have the size and modification time undo gave it: an inode number is reused once freed.</remarks>
    private bool WasRestored(JournalStep step, in StatxBuffer status) =>
        _journal.Undone.TryGetValue((step.Run, step.Seq), out var restored) && restored.Contains((status.Device, status.Ino))
        && (step.Kind is UndoKinds.RemoveFolder or UndoKinds.RemoveLink
            || ((long)status.Size == step.Before.File.Size && status.LastWriteTimeNs == step.Before.File.MtimeNs));

    private UndoJournalWriter Writer => _writer ??= new UndoJournalWriter(_journalPath, _journal.EndsWithNewline);

    /// <summary>Takes the journal's lock before the first step: a second undo of the same journal refuses before it changes anything.</summary>
    public void Lock() => _ = Writer;

    private static bool Matches(in StatxBuffer status, JournalFile file) =>
        RootedTree.IsFile(status, file.Device, file.Inode) && (long)status.Size == file.Size && status.LastWriteTimeNs == file.MtimeNs;

    /// <summary>How the name differs from what the journal expects, in words.</summary>
    private static string Describe(int errno, in StatxBuffer status, JournalFile expected, string what)
    {
        if (errno != 0)
        {
            return errno == Libc.ENOENT ? "no longer exists" : Libc.Message(errno);
        }

        if (status.IsSymbolicLink)
        {
            return $"a symbolic link is there now, not {what}";
        }

        if (status.IsDirectory)
        {
            return $"a folder is there now, not {what}";
        }

        if (!RootedTree.IsFile(status, expected.Device, expected.Inode))
        {
            return $"was replaced by another file since the action (not {what})";
        }

        return (long)status.Size != expected.Size
            ? string.Create(CultureInfo.InvariantCulture, $"changed size since the action ({status.Size} bytes, not {expected.Size})")
            : "was modified since the action";
    }

    private static unsafe int SetTimes(int folderFd, string name, JournalBefore before, bool followLast)
    {
        var times = stackalloc TimeSpec[2];
        times[0] = ToTimeSpec(before.AtimeNs);
        times[1] = ToTimeSpec(before.File.MtimeNs);
        return Libc.UtimensAt(folderFd, name, times, followLast ? 0 : Libc.AT_SYMLINK_NOFOLLOW) == 0 ? 0 : Libc.LastErrno;
    }

    private static TimeSpec ToTimeSpec(long ns)
    {
        var seconds = ns / 1_000_000_000L;
        var rest = ns % 1_000_000_000L;
        if (rest < 0)
        {
            seconds--;
            rest += 1_000_000_000L;
        }

        return new TimeSpec { Seconds = seconds, Nanoseconds = rest };
    }

    /// <summary>Refused when not root and the restored name would need another owner (only root can give a file away).</summary>
    private string? OwnerRefusal(JournalBefore before) =>
        _euid != 0 && before.Uid != _euid
            ? string.Create(CultureInfo.InvariantCulture, $"owned by uid {before.Uid}; only root can restore it")
            : null;
}
