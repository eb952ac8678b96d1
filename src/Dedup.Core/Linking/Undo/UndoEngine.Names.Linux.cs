using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// Trash, removed folders and removed links: a name given back without overwriting anything (<c>RENAME_NOREPLACE</c>),
/// a folder or link made under a temporary name first so the <c>undone</c> line can name its identity before the name
/// changes.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class UndoEngine
{
    private const int PrivateFolderMode = 0x1C0; // 0700 until it has its owner and mode

    /// <summary>A test seam: the home trash this flow's undo takes as the user's (as <c>TrashLinker(homeTrash)</c> for actions).</summary>
    internal static readonly AsyncLocal<string?> HomeTrash = new();

    /// <summary>The trash's <c>files/</c> and <c>info/</c>, each a real folder (no link in its place) under a trash folder of the user's.</summary>
    private (FolderHandle Files, FolderHandle Info)? OpenTrash(JournalStep step, out string problem)
    {
        var trash = step.Trash!;
        if (!IsPlainName(trash.Files) || !IsPlainName(trash.Info) || !trash.Info.EndsWith(TrashNames.InfoSuffix, StringComparison.Ordinal))
        {
            problem = "the journal's trash names are not names in files/ and info/";
            return null;
        }

        if (!IsTrashFor(step))
        {
            problem = $"{PathText.Escape(trash.Root)} is not the trash this user's trash would use for it now (the home trash, or its mount's .Trash/{_euid} or .Trash-{_euid}); nothing is taken from it";
            return null;
        }

        using var root = FolderHandle.TryOpen(trash.Root, followLast: false, out problem);
        if (root is null)
        {
            problem = $"the trash {PathText.Escape(trash.Root)}: {problem}";
            return null;
        }

        if (Libc.FStat(root.Fd, out var status) != 0 || !status.IsDirectory || (_euid != 0 && status.Uid != _euid))
        {
            problem = $"the trash {PathText.Escape(trash.Root)} is not a folder of the user's";
            return null;
        }

        var files = root.TryOpenChild("files", out problem);
        var info = files is null ? null : root.TryOpenChild("info", out problem);
        if (files is null || info is null)
        {
            files?.Dispose();
            problem = $"the trash {PathText.Escape(trash.Root)}: {problem}";
            return null;
        }

        return (files, info);
    }

    /// <summary>
    /// Whether the journal's trash is one the forward action could have used for this name, as this user's trash is
    /// found now (<see cref="TrashDirectory.Candidates"/>): a journal cannot make undo take a file from another folder.
    /// </summary>
    private static bool IsTrashFor(JournalStep step)
    {
        var root = System.IO.Path.GetFullPath(step.Trash!.Root).TrimEnd('/');
        return TrashDirectory.Candidates(step.Path, step.Before.File.Device, HomeTrash.Value ?? TrashDirectory.DefaultHomeTrash())
            .Any(candidate => string.Equals(candidate.TrimEnd('/'), root, StringComparison.Ordinal));
    }

    private (UndoOutcome, string?) RestoreFromTrash(JournalStep step, FolderHandle folder, string name)
    {
        var trash = OpenTrash(step, out var problem);
        if (trash is not { } opened)
        {
            return (UndoOutcome.LeftAlone, problem);
        }

        using (opened.Files)
        using (opened.Info)
        {
            if (Libc.LStatAt(opened.Files.Fd, step.Trash!.Files, out var trashed) != 0 || !Matches(trashed, step.Before.File))
            {
                return (UndoOutcome.LeftAlone, "changed in the trash while being restored");
            }

            Writer.Undone(step, trashed.Device, trashed.Ino);
            Faults?.Invoke(step.Path);
            if (Libc.RenameAt2(opened.Files.Fd, step.Trash.Files, folder.Fd, name, Libc.RENAME_NOREPLACE) != 0)
            {
                var errno = Libc.LastErrno;
                return errno == Libc.EEXIST
                    ? (UndoOutcome.LeftAlone, "the name was taken while being restored; never overwritten (the file stays in the trash)")
                    : (UndoOutcome.Failed, $"cannot move it back from the trash: {Libc.Message(errno)}");
            }

            _ = TrashDirectory.SyncFolder(folder.Fd);
            _ = TrashDirectory.SyncFolder(opened.Files.Fd);
            RemoveInfo(opened.Info, step.Trash.Info);
            return (UndoOutcome.Restored, null);
        }
    }

    /// <summary>An already restored trashing's info file, left by an undo killed between the move back and its removal.</summary>
    private void RemoveInfoFile(JournalStep step)
    {
        var trash = OpenTrash(step, out _);
        if (trash is { } opened)
        {
            using (opened.Files)
            using (opened.Info)
            {
                if (Libc.LStatAt(opened.Files.Fd, step.Trash!.Files, out _) == Libc.ENOENT)
                {
                    RemoveInfo(opened.Info, step.Trash.Info);
                }
            }
        }
    }

    private static void RemoveInfo(FolderHandle info, string name)
    {
        if (Libc.LStatAt(info.Fd, name, out var status) == 0 && status.IsRegularFile)
        {
            _ = Libc.UnlinkAt(info.Fd, name, 0);
            _ = TrashDirectory.SyncFolder(info.Fd);
        }
    }

    private (UndoOutcome, string?) RecreateFolder(JournalStep step, JournalRun run, FolderHandle parent, string name)
    {
        var before = step.Before;
        var temporary = TemporaryNames.NewName();
        if (Libc.MkdirAt(parent.Fd, temporary, PrivateFolderMode) != 0)
        {
            return (UndoOutcome.Failed, $"cannot create the folder: {Libc.Message(Libc.LastErrno)}");
        }

        var renamed = false;
        var fd = Libc.OpenAt(parent.Fd, temporary, Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0);
        try
        {
            if (fd < 0 || Libc.FStat(fd, out var made) != 0)
            {
                return (UndoOutcome.Failed, $"cannot open the new folder: {Libc.Message(Libc.LastErrno)}");
            }

            // Owner, extended attributes, mode and times as a copy gets them (the times again once its files are back).
            if (Metadata(fd, before) is { } refused)
            {
                return refused;
            }

            if (Libc.Fsync(fd) != 0)
            {
                return (UndoOutcome.Failed, $"cannot write the new folder: {Libc.Message(Libc.LastErrno)}");
            }

            Faults?.Invoke(step.Path);
            if (Libc.RenameAt2(parent.Fd, temporary, parent.Fd, name, Libc.RENAME_NOREPLACE) != 0)
            {
                var errno = Libc.LastErrno;
                return errno == Libc.EEXIST
                    ? (UndoOutcome.LeftAlone, "the name was taken while being restored; never overwritten")
                    : (UndoOutcome.Failed, $"cannot name the new folder: {Libc.Message(errno)}");
            }

            // After the rename, unlike a file's copy: making a folder at a free name is safe to repeat, and a line with
            // no folder at the name then means it was removed since (DecideRemoved), not that undo was killed.
            renamed = true;
            _ = TrashDirectory.SyncFolder(parent.Fd);
            Writer.Undone(step, made.Device, made.Ino);
            _folderTimes.Add((step, run, made.Device, made.Ino));
            Remade(step, (made.Device, made.Ino));
            return (UndoOutcome.Restored, null);
        }
        finally
        {
            if (fd >= 0)
            {
                _ = Libc.Close(fd);
            }

            if (!renamed)
            {
                _ = Libc.UnlinkAt(parent.Fd, temporary, AtRemoveDir);
            }
        }
    }

    private const int AtRemoveDir = 0x200;

    private (UndoOutcome, string?) RecreateLink(JournalStep step, FolderHandle parent, string name)
    {
        var before = step.Before;
        var temporary = TemporaryNames.NewName();
        if (Libc.SymlinkAt(step.Target!, parent.Fd, temporary) != 0)
        {
            return (UndoOutcome.Failed, $"cannot create the link: {Libc.Message(Libc.LastErrno)}");
        }

        var renamed = false;
        try
        {
            if (Libc.LStatAt(parent.Fd, temporary, out var made) != 0)
            {
                return (UndoOutcome.Failed, $"cannot read the new link: {Libc.Message(Libc.LastErrno)}");
            }

            if ((made.Uid != before.Uid || made.Gid != before.Gid) && Libc.FchownAt(parent.Fd, temporary, before.Uid, before.Gid, Libc.AT_SYMLINK_NOFOLLOW) != 0)
            {
                return (UndoOutcome.LeftAlone, $"cannot give the link its owner: {Libc.Message(Libc.LastErrno)}");
            }

            _ = SetTimes(parent.Fd, temporary, before, followLast: false);
            Faults?.Invoke(step.Path);
            if (Libc.RenameAt2(parent.Fd, temporary, parent.Fd, name, Libc.RENAME_NOREPLACE) != 0)
            {
                var errno = Libc.LastErrno;
                return errno == Libc.EEXIST
                    ? (UndoOutcome.LeftAlone, "the name was taken while being restored; never overwritten")
                    : (UndoOutcome.Failed, $"cannot name the new link: {Libc.Message(errno)}");
            }

            renamed = true;
            _ = TrashDirectory.SyncFolder(parent.Fd);
            Writer.Undone(step, made.Device, made.Ino); // after the rename, as for a folder
            return (UndoOutcome.Restored, null);
        }
        finally
        {
            if (!renamed)
            {
                _ = Libc.UnlinkAt(parent.Fd, temporary, 0);
            }
        }
    }

    private static bool IsPlainName(string name) => name.Length > 0 && name is not "." and not ".." && !name.Contains('/', StringComparison.Ordinal) && !name.Contains('\0', StringComparison.Ordinal);
}
