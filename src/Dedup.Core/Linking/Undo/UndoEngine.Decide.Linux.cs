using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Undo;

/// <summary>The decisions (journal-format.md, last section): only from what the name, and the trash, hold now.</summary>
[SupportedOSPlatform("linux")]
internal sealed partial class UndoEngine
{
    private ((UndoOutcome? Outcome, string? Reason) Decision, StatxBuffer Now) Decide(JournalStep step, JournalRun run, FolderHandle folder, string name)
    {
        var errno = Libc.LStatAt(folder.Fd, name, out var now);
        var decision = step.Kind switch
        {
            UndoKinds.Trash => DecideTrash(step, errno, now),
            UndoKinds.RemoveFolder or UndoKinds.RemoveLink => DecideRemoved(step, errno, now),
            _ => DecideCopy(step, run, folder, name, errno, now),
        };
        return (decision, now);
    }

    /// <summary>Links, clones, dedupe, a replacement: the name must lead to <c>after</c> to be undone.</summary>
    private (UndoOutcome?, string?) DecideCopy(JournalStep step, JournalRun run, FolderHandle folder, string name, int errno, in StatxBuffer now)
    {
        if (errno == 0 && WasRestored(step, now))
        {
            return (UndoOutcome.AlreadyRestored, null);
        }

        bool done;
        if (step.Kind == UndoKinds.SymbolicLink)
        {
            // The link itself: its identity when made (after) or, in an older line without after, its text.
            done = errno == 0 && now.IsSymbolicLink
                && (step.After is { } link ? RootedTree.IsFile(now, link.Device, link.Inode) : step.Target is not null && Libc.ReadLinkTarget(folder.Fd, name) == step.Target);
        }
        else
        {
            done = errno == 0 && now.IsRegularFile && Matches(now, step.After!.Value);
        }

        if (!done)
        {
            if (errno == 0 && now.IsRegularFile && Matches(now, step.Before.File))
            {
                return (UndoOutcome.WasNotDone, null);
            }

            return (UndoOutcome.LeftAlone, step.Kind == UndoKinds.SymbolicLink && errno == 0 && now.IsSymbolicLink
                ? "another symbolic link is there now, not the one the action made"
                : Describe(errno, now, step.After ?? step.Before.File, "what the action left"));
        }

        if (OwnerRefusal(step.Before) is { } refusal)
        {
            return (UndoOutcome.LeftAlone, refusal);
        }

        if (step.Kind == UndoKinds.Dedupe && now.NLink > 1)
        {
            // A dedupe changed neither the file's bytes nor its identity nor its metadata, only which extents it shares:
            // the name is as it was. A copy renamed over it would part it from its other names, which the action never did.
            return (UndoOutcome.AlreadyRestored, string.Create(
                System.Globalization.CultureInfo.InvariantCulture,
                $"its bytes, identity and metadata are as before the dedupe; it has {now.NLink} names (hard links), which a copy would part, so its extents stay shared"));
        }

        if (step.Kind == UndoKinds.SymbolicLink)
        {
            if (step.Target is not null && Libc.ReadLinkTarget(folder.Fd, name) != step.Target)
            {
                return (UndoOutcome.LeftAlone, "the link's text changed since the action");
            }

            using var kept = OpenKept(step, run, out var problem);
            if (kept is null)
            {
                return (UndoOutcome.LeftAlone, problem);
            }
        }

        return (null, null);
    }

    /// <summary>Trash: the trashed file must be in <c>files/</c> as the journal says, and nothing at its name.</summary>
    private (UndoOutcome?, string?) DecideTrash(JournalStep step, int errno, in StatxBuffer now)
    {
        var before = step.Before.File;
        var trash = OpenTrash(step, out var problem);
        var inTrash = trash is not null && Libc.LStatAt(trash.Value.Files.Fd, step.Trash!.Files, out var trashed) == 0
            && Matches(trashed, before);
        trash?.Files.Dispose();
        trash?.Info.Dispose();
        if (inTrash)
        {
            return errno == Libc.ENOENT
                ? (null, null)
                : (UndoOutcome.LeftAlone, $"the name is taken{(errno == 0 ? string.Empty : $" ({Libc.Message(errno)})")}; the file stays in the trash as {PathText.Escape(System.IO.Path.Combine(step.Trash!.Root, "files", step.Trash.Files))}");
        }

        if (errno == 0 && Matches(now, before))
        {
            return (WasRestored(step, now) ? UndoOutcome.AlreadyRestored : UndoOutcome.WasNotDone, null);
        }

        return (UndoOutcome.LeftAlone, trash is null
            ? problem
            : $"the trashed file is no longer in the trash as {PathText.Escape(step.Trash!.Files)} (emptied, or restored by hand), and the name {Describe(errno, now, before, "the trashed file")}");
    }

    /// <summary>A removed folder or link: its name must be free, else it is ours already, was never removed, or is taken.</summary>
    private (UndoOutcome?, string?) DecideRemoved(JournalStep step, int errno, in StatxBuffer now)
    {
        if (errno == Libc.ENOENT)
        {
            // Undo writes its undone line for a folder or link once it has the name (see RecreateFolder): a line and no
            // name means it was made and removed since, by someone who wanted it gone.
            if (_journal.Undone.ContainsKey((step.Run, step.Seq)))
            {
                return (UndoOutcome.LeftAlone, "an earlier undo made it again, and it has been removed since; not made again");
            }

            return OwnerRefusal(step.Before) is { } refusal ? (UndoOutcome.LeftAlone, refusal) : (null, null);
        }

        if (errno != 0)
        {
            return (UndoOutcome.LeftAlone, Libc.Message(errno));
        }

        if (WasRestored(step, now))
        {
            return (UndoOutcome.AlreadyRestored, null);
        }

        var same = step.Kind == UndoKinds.RemoveFolder ? now.IsDirectory : now.IsSymbolicLink;
        return same && RootedTree.IsFile(now, step.Before.File.Device, step.Before.File.Inode)
            ? (UndoOutcome.WasNotDone, null)
            : (UndoOutcome.LeftAlone, "the name is taken by another file, folder or link; never overwritten");
    }

    /// <summary>A symbolic link's kept file, opened from the run's roots, still as the action found it (its bytes are the logged ones).</summary>
    private Microsoft.Win32.SafeHandles.SafeFileHandle? OpenKept(JournalStep step, JournalRun run, out string problem)
    {
        using var folder = OpenFolder(run, step.Kept!, out var name, out problem);
        if (folder is null)
        {
            problem = "kept file's " + problem;
            return null;
        }

        var fd = RootedTree.OpenFile(folder.Fd, name);
        if (fd < 0)
        {
            problem = $"kept file {PathText.Escape(step.Kept!)}: {Libc.Message(Libc.LastErrno)}";
            return null;
        }

        var handle = new Microsoft.Win32.SafeHandles.SafeFileHandle((nint)fd, ownsHandle: true);
        if (Libc.FStat(fd, out var status) != 0 || !status.IsRegularFile || !Matches(status, step.KeptFile!.Value) || (long)status.Size != step.Before.File.Size)
        {
            handle.Dispose();
            problem = $"kept file {PathText.Escape(step.Kept!)} changed since the action; its bytes are no longer the logged ones";
            return null;
        }

        return handle;
    }
}
