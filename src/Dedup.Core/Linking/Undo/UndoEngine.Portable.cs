using System.Globalization;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Undo;

/// <summary>A <c>trashed</c> line: where a system trash move (Windows, macOS) put the file, and the Recycle Bin's <c>$I…</c> file.</summary>
internal sealed record JournalTrashed(string Location, string? Info);

/// <summary>
/// Takes journalled actions back on Windows and macOS, where the forward actions run on paths through the portable
/// re-checks (<see cref="PortableContext"/>): every decision is made by opening the name as itself (never following a
/// final link or reparse point) and comparing its identity (volume and file id), size and modification time with the
/// journal's <c>before</c>, <c>after</c> and <c>undone</c>, with the wording of the Linux engine. Links and clones get
/// a verified copy with the logged modification time (the portable journal records no mode, owner or attributes);
/// trashed files go back from the Recycle Bin or Trash to a free name. Folders are reached by path, lexically inside
/// the run's roots (the portable path has no rooted walk). Also runs on Linux, for the tests.
/// </summary>
internal sealed partial class PortableUndoEngine : IDisposable
{
    private readonly JournalReader _journal;
    private readonly string _journalPath;
    private UndoJournalWriter? _writer;

    public PortableUndoEngine(JournalReader journal, string journalPath)
    {
        _journal = journal;
        _journalPath = journalPath;
    }

    /// <summary>A test seam: called after each <c>undone</c> line is synced, before the name changes.</summary>
    internal Action<string>? Faults { get; set; }

    /// <summary>What the system trash is called where the undo runs, for the reasons.</summary>
    private static string TrashName => OperatingSystem.IsMacOS() ? "the Trash" : "the Recycle Bin";

    private UndoJournalWriter Writer => _writer ??= new UndoJournalWriter(_journalPath, _journal.EndsWithNewline);

    /// <summary>Takes the journal's lock before the first step.</summary>
    public void Lock() => _ = Writer;

    public void Dispose() => _writer?.Dispose();

    /// <summary>What undo would do for <paramref name="step"/>: <see langword="null"/> to restore it, else the outcome and its reason. Changes nothing.</summary>
    public (UndoOutcome? Outcome, string? Reason) Inspect(JournalStep step, JournalRun? run)
    {
        if (Refusal(step, run) is { } refused)
        {
            return refused;
        }

        return Decide(step).Decision;
    }

    /// <summary>Restores <paramref name="step"/> if inspection says so, or says why not.</summary>
    public (UndoOutcome Outcome, string? Reason) Apply(JournalStep step, JournalRun? run)
    {
        if (Refusal(step, run) is { } refused)
        {
            return (refused.Outcome, refused.Reason);
        }

        var (decision, now) = Decide(step);
        if (decision.Outcome is { } outcome)
        {
            if (step.Kind == UndoKinds.Trash && outcome is UndoOutcome.AlreadyRestored)
            {
                RemoveInfoFile(step); // an undo killed between the move back and the removal of the $I file
            }

            return (outcome, decision.Reason);
        }

        try
        {
            return step.Kind == UndoKinds.Trash ? RestoreFromTrash(step) : RestoreCopy(step, now!.Value);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return (UndoOutcome.Failed, ex.Message);
        }
    }

    /// <summary>The file system a step's copy is written to: its volume (the journal's device), its folder and the bytes free there.</summary>
    public static (ulong Device, string Folder, long Available)? FileSystemOf(JournalStep step)
    {
        var folder = Path.GetDirectoryName(step.Path);
        try
        {
            // Windows names a drive by its root; elsewhere DriveInfo asks statvfs of the folder itself.
            var drive = new DriveInfo(OperatingSystem.IsWindows() ? Path.GetPathRoot(step.Path)! : folder!);
            return folder is null ? null : (step.Before.File.Device, folder, drive.AvailableFreeSpace);
        }
        catch (Exception ex) when (ex is IOException or ArgumentException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>The refusals that need no look at the disk.</summary>
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

        if (step.Kind is UndoKinds.RemoveFolder or UndoKinds.RemoveLink or UndoKinds.Dedupe)
        {
            return (UndoOutcome.LeftAlone, $"undo of a {UndoKinds.Describe(step.Kind)} is implemented for Linux only");
        }

        if (step.Before.HasMetadata)
        {
            return (UndoOutcome.LeftAlone, "the journal records a mode, owner and access time (it was logged on Linux), which undo restores on Linux only");
        }

        if (!InRoots(step.Path, run) || (step.Kept is not null && step.Kind == UndoKinds.SymbolicLink && !InRoots(step.Kept, run)))
        {
            return (UndoOutcome.LeftAlone, "not inside the run's roots; nothing is done outside a run's roots");
        }

        if (step.Copies && step.After is null)
        {
            return (UndoOutcome.LeftAlone, "the journal does not say what the name led to after the action");
        }

        return step.Kind == UndoKinds.SymbolicLink && (step.Kept is null || step.KeptFile is null)
            ? (UndoOutcome.LeftAlone, "the journal does not name the kept file the link leads to")
            : null;
    }

    private static bool InRoots(string path, JournalRun run)
    {
        var parsed = AbsolutePath.Parse(path);
        return parsed.Parent is not null && run.Roots.Any(r => parsed.IsUnder(r.Path));
    }

    private ((UndoOutcome? Outcome, string? Reason) Decision, NameState? Now) Decide(JournalStep step)
    {
        var now = NameState.Read(step.Path, out var problem);
        return (step.Kind == UndoKinds.Trash ? DecideTrash(step, now, problem) : DecideCopy(step, now, problem), now);
    }

    /// <summary>Links, clones, a replacement: the name must lead to <c>after</c> to be undone.</summary>
    private (UndoOutcome?, string?) DecideCopy(JournalStep step, NameState? now, string problem)
    {
        if (now is { } found && WasRestored(step, found))
        {
            return (UndoOutcome.AlreadyRestored, null);
        }

        var after = step.After!.Value;
        var done = step.Kind == UndoKinds.SymbolicLink
            ? now is { Kind: PortableFileKind.Link } link && link.Is(after.Device, after.Inode)
            : now is { Kind: PortableFileKind.RegularFile } file && file.Matches(after);
        if (!done)
        {
            if (now is { Kind: PortableFileKind.RegularFile } same && same.Matches(step.Before.File))
            {
                return (UndoOutcome.WasNotDone, null);
            }

            return (UndoOutcome.LeftAlone, step.Kind == UndoKinds.SymbolicLink && now is { Kind: PortableFileKind.Link }
                ? "another symbolic link is there now, not the one the action made"
                : Describe(now, problem, after, "what the action left"));
        }

        if (step.Kind == UndoKinds.SymbolicLink)
        {
            using var kept = OpenKept(step, out var keptProblem);
            if (kept is null)
            {
                return (UndoOutcome.LeftAlone, keptProblem);
            }
        }

        return (null, null);
    }

    /// <summary>Trash: the recorded file must be in the Recycle Bin or Trash, still the trashed file, and nothing at its name.</summary>
    private (UndoOutcome?, string?) DecideTrash(JournalStep step, NameState? now, string problem)
    {
        var before = step.Before.File;
        var location = _journal.Trashed.TryGetValue((step.Run, step.Seq), out var recorded) ? recorded : null;
        var trashed = location is null ? null : NameState.Read(location.Location, out _);
        if (trashed is { Kind: PortableFileKind.RegularFile } inTrash && inTrash.Matches(before))
        {
            return now is null && !Exists(step.Path)
                ? (null, null)
                : (UndoOutcome.LeftAlone, $"the name is taken; never overwritten (the file stays in {TrashName} as {PathText.Escape(location!.Location)})");
        }

        if (now is { Kind: PortableFileKind.RegularFile } back && back.Matches(before))
        {
            return (WasRestored(step, back) ? UndoOutcome.AlreadyRestored : UndoOutcome.WasNotDone, null);
        }

        if (location is null)
        {
            return (UndoOutcome.LeftAlone, OperatingSystem.IsMacOS()
                ? "the journal does not say where in the Trash it went; restore it from the Trash (Put Back)"
                : "the journal does not say where in the Recycle Bin it went; restore it from the Recycle Bin (Explorer)");
        }

        return (UndoOutcome.LeftAlone, $"the trashed file is no longer in {TrashName} as {PathText.Escape(location.Location)} (emptied, or restored by hand), and the name {Describe(now, problem, before, "the trashed file")}");
    }

    /// <summary>Whether <paramref name="now"/> is what an earlier undo gave the name (an <c>undone</c> line's identity, with the logged size and time).</summary>
    private bool WasRestored(JournalStep step, NameState now) =>
        now.Kind == PortableFileKind.RegularFile && _journal.Undone.TryGetValue((step.Run, step.Seq), out var restored)
        && restored.Contains((now.Identity.Device, now.Identity.FileId)) && now.Size == step.Before.File.Size && now.MtimeNs == step.Before.File.MtimeNs;

    /// <summary>How the name differs from what the journal expects, in the Linux engine's words.</summary>
    private static string Describe(NameState? now, string problem, JournalFile expected, string what)
    {
        if (now is not { } found)
        {
            return problem;
        }

        return found.Kind switch
        {
            PortableFileKind.Link => $"a symbolic link is there now, not {what}",
            PortableFileKind.Directory => $"a folder is there now, not {what}",
            _ when !found.Is(expected.Device, expected.Inode) || found.Kind != PortableFileKind.RegularFile => $"was replaced by another file since the action (not {what})",
            _ when found.Size != expected.Size => string.Create(CultureInfo.InvariantCulture, $"changed size since the action ({found.Size} bytes, not {expected.Size})"),
            _ => "was modified since the action",
        };
    }

    /// <summary>A symbolic link's kept file, still as the action found it (its bytes are the logged ones).</summary>
    private static SafeFileHandle? OpenKept(JournalStep step, out string problem)
    {
        var handle = NameState.Open(step.Kept!, out var kept, out problem);
        if (handle is null)
        {
            problem = $"kept file {PathText.Escape(step.Kept!)}: {problem}";
            return null;
        }

        if (kept is not { Kind: PortableFileKind.RegularFile } file || !file.Matches(step.KeptFile!.Value) || file.Size != step.Before.File.Size)
        {
            handle.Dispose();
            problem = $"kept file {PathText.Escape(step.Kept!)} changed since the action; its bytes are no longer the logged ones";
            return null;
        }

        return handle;
    }

    private static bool Exists(string path)
    {
        try
        {
            _ = File.GetAttributes(path);
            return true;
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            return false;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return true; // cannot tell: taken, as far as undo is concerned
        }
    }
}

/// <summary>A name as it is now, read from the name opened as itself: kind, identity, size and modification time (ns).</summary>
internal readonly record struct NameState(PortableFileKind Kind, FileIdentity Identity, long Size, long MtimeNs)
{
    public bool Is(ulong device, ulong inode) => Identity == new FileIdentity(device, inode);

    public bool Matches(JournalFile file) => Is(file.Device, file.Inode) && Size == file.Size && MtimeNs == file.MtimeNs;

    /// <summary>Reads <paramref name="path"/>; <see langword="null"/> and the reason in words when it cannot be opened.</summary>
    public static NameState? Read(string path, out string problem)
    {
        using var handle = Open(path, out var state, out problem);
        return state;
    }

    /// <summary>Opens <paramref name="path"/> as itself and reads it; the handle, or <see langword="null"/> and the reason.</summary>
    public static SafeFileHandle? Open(string path, out NameState? state, out string problem)
    {
        state = null;
        var handle = PortableFile.TryOpen(path, out var error);
        if (handle is null)
        {
            problem = Unopened(path, error);
            return null;
        }

        try
        {
            var status = PortableFile.StatusOf(handle);
            var size = status.Kind == PortableFileKind.Directory ? 0 : RandomAccess.GetLength(handle);
            state = new NameState(status.Kind, status.Identity, size, PortableContext.Nanoseconds(File.GetLastWriteTimeUtc(handle)));
            problem = string.Empty;
            return handle;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or PlatformNotSupportedException)
        {
            handle.Dispose();
            problem = $"cannot be examined ({ex.Message})";
            return null;
        }
    }

    private static string Unopened(string path, string error)
    {
        try
        {
            var attributes = File.GetAttributes(path);
            return (attributes & FileAttributes.ReparsePoint) != 0 ? "a symbolic link or another reparse point is there now"
                : (attributes & FileAttributes.Directory) != 0 ? "a folder is there now"
                : $"cannot be opened: {error}";
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            return "no longer exists";
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return $"cannot be opened: {error}";
        }
    }
}
