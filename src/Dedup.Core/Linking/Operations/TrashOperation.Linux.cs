using System.Globalization;
using System.Runtime.Versioning;
using System.Text;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Operations;

/// <summary>
/// Linux: moves the duplicate to the trash: the info file is created first with O_EXCL (reserving the name; a taken
/// name gets a numeric suffix), then the duplicate is renamed into <c>files/</c> without replacing anything. Info files
/// that interrupted runs left without their file are removed before a trash is used (<see cref="TrashDirectory.RemoveIncompleteTrashings"/>).
/// On Windows and macOS the executor moves it to the Recycle Bin or Trash instead (<c>PlanExecutor.Portable.cs</c>).
/// </summary>
[SupportedOSPlatform("linux")]
internal static class TrashOperation
{
    private const int MaxAttempts = 10_000;

    /// <summary>When each trash was last repaired: once per grace period is enough (a long-lived process repairs again).</summary>
    private static readonly Dictionary<string, DateTime> s_repaired = new(StringComparer.Ordinal);

    /// <param name="context">The action.</param>
    /// <param name="homeTrash">The home trash folder (a test seam), or <see langword="null"/> for <c>$XDG_DATA_HOME/Trash</c>.</param>
    public static void Apply(LinkContext context, string? homeTrash)
    {
        var trash = TrashDirectory.For(context.DuplicatePath, context.Action.Duplicate.Identity.Device, homeTrash ?? TrashDirectory.DefaultHomeTrash());
        var info = Encoding.UTF8.GetBytes(
            "[Trash Info]\nPath=" + trash.InfoPathValue(context.DuplicatePath) +
            "\nDeletionDate=" + DateTime.Now.ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture) + "\n");
        var name = context.DuplicateName;
        var (files, infoFolder) = trash.Open();
        using (files)
        using (infoFolder)
        {
            RepairOnce(trash, files, infoFolder);
            for (var attempt = 1; attempt <= MaxAttempts; attempt++)
            {
                var candidate = TrashNames.Candidate(name, attempt);
                var infoName = candidate + TrashNames.InfoSuffix;
                var infoPath = Path.Combine(trash.InfoFolder, infoName);
                if (Libc.LStatAt(files.Fd, candidate, out _) == 0 || !TryReserve(infoFolder.Fd, infoName, infoPath, info))
                {
                    continue;
                }

                try
                {
                    context.Faults?.BeforeTrashMove?.Invoke(infoPath, context.DuplicatePath);
                    context.CheckKeptUnchanged();
                    context.CheckDuplicateUnchanged();
                    context.Begin("trash", trash: new Journal.JournalTrash(trash.Root, candidate, infoName));
                    context.Faults?.AfterLastCheck?.Invoke(context.DuplicatePath);
                    if (Libc.RenameAt2(context.FolderFd, context.DuplicateName, files.Fd, candidate, Libc.RENAME_NOREPLACE) == 0)
                    {
                        // Make the move durable; the info file's entry already is (see TryReserve). The move is done
                        // either way: a failed sync cannot be undone and leaves at worst the file back in place
                        // beside its info file after a power loss, which the next run repairs.
                        _ = TrashDirectory.SyncFolder(files.Fd);
                        _ = TrashDirectory.SyncFolder(context.FolderFd);
                        return;
                    }

                    var errno = Libc.LastErrno;
                    if (errno != Libc.EEXIST)
                    {
                        throw ActionStoppedException.Fail($"cannot move into the trash {PathText.Escape(trash.Root)}: {Libc.Message(errno)}; duplicate unchanged");
                    }
                }
                catch
                {
                    _ = Libc.UnlinkAt(infoFolder.Fd, infoName, 0);
                    throw;
                }

                _ = Libc.UnlinkAt(infoFolder.Fd, infoName, 0); // the files/ name was taken meanwhile: try the next name
            }
        }

        throw ActionStoppedException.Fail($"no free name in the trash {PathText.Escape(trash.Root)} for {PathText.Escape(name)}");
    }

    private static void RepairOnce(TrashDirectory trash, FolderHandle files, FolderHandle info)
    {
        var now = DateTime.UtcNow;
        lock (s_repaired)
        {
            if (s_repaired.TryGetValue(trash.Root, out var last) && now - last < TrashDirectory.OrphanGracePeriod)
            {
                return;
            }

            s_repaired[trash.Root] = now;
        }

        _ = TrashDirectory.RemoveIncompleteTrashings(files, info, now);
    }

    /// <summary>Creates the info file with O_EXCL; <see langword="false"/> when the name is taken, throws on other errors.</summary>
    private static bool TryReserve(int infoFolder, string infoName, string infoPath, byte[] content)
    {
        var fd = Libc.OpenAt(infoFolder, infoName, Libc.O_WRONLY | Libc.O_CREAT | Libc.O_EXCL | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0x180);
        if (fd < 0)
        {
            var errno = Libc.LastErrno;
            return errno == Libc.EEXIST
                ? false
                : throw ActionStoppedException.Fail($"cannot create the trash info file {PathText.Escape(infoPath)}: {Libc.Message(errno)}; duplicate unchanged");
        }

        using var handle = new SafeFileHandle((nint)fd, ownsHandle: true);
        try
        {
            RandomAccess.Write(handle, content, 0);

            // The info file and its name in info/ reach the disk before the file is moved: after a power loss a file
            // in files/ always has its info file.
            if (Libc.Fsync(fd) != 0)
            {
                throw new IOException(Libc.Message(Libc.LastErrno));
            }

            var synced = TrashDirectory.SyncFolder(infoFolder);
            if (synced != 0)
            {
                throw new IOException(Libc.Message(synced));
            }
        }
        catch (IOException ex)
        {
            _ = Libc.UnlinkAt(infoFolder, infoName, 0);
            throw ActionStoppedException.Fail($"cannot write the trash info file {PathText.Escape(infoPath)}: {ex.Message}; duplicate unchanged");
        }

        return true;
    }
}
