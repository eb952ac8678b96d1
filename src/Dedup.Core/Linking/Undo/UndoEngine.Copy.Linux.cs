using System.Globalization;
using System.Runtime.Versioning;
using System.Text;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// Links, clones, dedupe and replacements: the content the name leads to now is copied into a temporary name in the
/// same folder, verified byte for byte, given the logged owner, mode, extended attributes and times, synced; then the
/// <c>undone</c> line is synced, the name re-checked and the copy renamed over it; the inode flags come last (an
/// immutable flag would forbid the rename).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class UndoEngine
{
    private unsafe (UndoOutcome, string?) RestoreCopy(JournalStep step, JournalRun run, FolderHandle folder, string name, StatxBuffer checkedName)
    {
        var before = step.Before;
        string? problem = null;
        using var source = step.Kind == UndoKinds.SymbolicLink ? OpenKept(step, run, out problem) : OpenName(folder, name, checkedName, out problem);
        if (source is null)
        {
            return (UndoOutcome.LeftAlone, problem);
        }

        var temporary = TemporaryNames.NewName();
        var fd = Libc.OpenAt(folder.Fd, temporary, Libc.O_RDWR | Libc.O_CREAT | Libc.O_EXCL | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0x180);
        if (fd < 0)
        {
            return (UndoOutcome.Failed, $"cannot create a copy in {PathText.Escape(folder.Path)}: {Libc.Message(Libc.LastErrno)}");
        }

        using var copy = new SafeFileHandle((nint)fd, ownsHandle: true);
        var renamed = false;
        try
        {
            ContentVerification.Copy(source, copy, before.File.Size);
            try
            {
                ContentVerification.RequireEqual(source, copy, before.File.Size);
            }
            catch (ActionStoppedException ex)
            {
                return (UndoOutcome.Failed, $"the copy does not hold the content it was made from ({ex.Message.Replace("; left untouched", string.Empty)})");
            }

            if (Metadata(fd, before) is { } failed)
            {
                return failed;
            }

            if (Libc.Fsync(fd) != 0 || Libc.FStat(fd, out var made) != 0)
            {
                return (UndoOutcome.Failed, $"cannot sync the copy: {Libc.Message(Libc.LastErrno)}");
            }

            Writer.Undone(step, made.Device, made.Ino);
            Faults?.Invoke(step.Path);

            // The name must still be exactly what was inspected (a write, chmod or link since moves its change time).
            if (Libc.LStatAt(folder.Fd, name, out var now) != 0 || !RootedTree.IsSame(now, checkedName)
                || now.CtimeSec != checkedName.CtimeSec || now.CtimeNsec != checkedName.CtimeNsec
                || now.Size != checkedName.Size || now.LastWriteTimeNs != checkedName.LastWriteTimeNs)
            {
                return (UndoOutcome.LeftAlone, "changed while being restored");
            }

            if (Libc.RenameAt2(folder.Fd, temporary, folder.Fd, name, 0) != 0)
            {
                return (UndoOutcome.Failed, $"cannot rename the copy over the name: {Libc.Message(Libc.LastErrno)}");
            }

            renamed = true;
            _ = TrashDirectory.SyncFolder(folder.Fd);
            return (UndoOutcome.Restored, SetFlags(fd, before.Flags));
        }
        catch (IOException ex)
        {
            return (UndoOutcome.Failed, ex.HResult == Libc.ENOSPC || ex.Message.Contains("space", StringComparison.OrdinalIgnoreCase)
                ? $"no space left for the copy in {PathText.Escape(folder.Path)}"
                : ex.Message);
        }
        finally
        {
            if (!renamed)
            {
                _ = Libc.UnlinkAt(folder.Fd, temporary, 0);
            }
        }
    }

    /// <summary>A test seam: called after the <c>undone</c> line is synced, before the name is re-checked and renamed over.</summary>
    internal Action<string>? Faults { get; set; }

    /// <summary>The name itself, opened without following a link, still the file inspected.</summary>
    private static SafeFileHandle? OpenName(FolderHandle folder, string name, in StatxBuffer checkedName, out string? problem)
    {
        var fd = RootedTree.OpenFile(folder.Fd, name);
        if (fd < 0)
        {
            problem = $"cannot be opened: {Libc.Message(Libc.LastErrno)}";
            return null;
        }

        var handle = new SafeFileHandle((nint)fd, ownsHandle: true);
        if (Libc.FStat(fd, out var opened) != 0 || !RootedTree.IsSame(opened, checkedName) || opened.LastWriteTimeNs != checkedName.LastWriteTimeNs)
        {
            handle.Dispose();
            problem = "changed while being restored";
            return null;
        }

        problem = null;
        return handle;
    }

    /// <summary>Owner, extended attributes, mode and times as logged (in the clone operation's order); a refusal or failure, else <see langword="null"/>.</summary>
    private unsafe (UndoOutcome, string?)? Metadata(int fd, JournalBefore before)
    {
        if (Libc.FStat(fd, out var made) == 0 && (made.Uid != before.Uid || made.Gid != before.Gid)
            && Libc.Fchown(fd, before.Uid, before.Gid) != 0)
        {
            var errno = Libc.LastErrno;
            return errno == Libc.EPERM
                ? (UndoOutcome.LeftAlone, string.Create(CultureInfo.InvariantCulture, $"group gid {before.Gid}; only root or a member of the group can restore it"))
                : (UndoOutcome.Failed, $"cannot give the copy its owner: {Libc.Message(errno)}");
        }

        // After fchown, which clears security.capability; before fchmod, so the mode wins over an access ACL's.
        foreach (var attribute in before.Xattrs)
        {
            var nameBytes = Encoding.UTF8.GetBytes(attribute.Name + "\0");
            fixed (byte* n = nameBytes)
            fixed (byte* v = attribute.Value)
            {
                if (Libc.FSetXattr(fd, n, v, (nuint)attribute.Value.Length, 0) != 0)
                {
                    return (UndoOutcome.Failed, $"cannot set the extended attribute {attribute.Name}: {Libc.Message(Libc.LastErrno)}");
                }
            }
        }

        var times = stackalloc TimeSpec[2];
        times[0] = ToTimeSpec(before.AtimeNs);
        times[1] = ToTimeSpec(before.File.MtimeNs);
        if (Libc.Fchmod(fd, (int)(before.Mode & 0xFFF)) != 0 || Libc.Futimens(fd, times) != 0)
        {
            return (UndoOutcome.Failed, $"cannot give the copy its mode and times: {Libc.Message(Libc.LastErrno)}");
        }

        return null;
    }

    /// <summary>The logged inode flags (chattr), set once the copy has its name; a note when they could not be.</summary>
    private static unsafe string? SetFlags(int fd, int flags)
    {
        int current;
        if (flags == 0 || (Libc.Ioctl(fd, Libc.FS_IOC_GETFLAGS, (nint)(&current)) == 0 && current == flags))
        {
            return null;
        }

        var wanted = flags;
        return Libc.Ioctl(fd, Libc.FS_IOC_SETFLAGS, (nint)(&wanted)) == 0
            ? null
            : $"its inode flags (chattr) could not be set again: {Libc.Message(Libc.LastErrno)}";
    }
}
