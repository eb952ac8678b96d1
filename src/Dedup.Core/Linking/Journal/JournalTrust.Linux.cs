using System.Globalization;
using System.Runtime.Versioning;
using Dedup.Core.Interop;

namespace Dedup.Core.Linking.Journal;

/// <summary>
/// Who may have written a journal: undo does what its lines say (modes, owners, names), so a journal another user can
/// write is a way to make root's undo act for them. A journal is trusted when it is a regular file (not a link)
/// writable by no one but its owner's group at most, owned by the user who reads it or by root; root trusts only one
/// that only root can write. The same rule holds for appending a run to an existing journal.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class JournalTrust
{
    private const int GroupWrite = 0x10; // 0020
    private const int OtherWrite = 0x02; // 0002

    /// <summary>Why the open journal <paramref name="fd"/> cannot be trusted, or <see langword="null"/>.</summary>
    /// <param name="fd">The open journal.</param>
    /// <param name="toRead">Read by undo: it must be a regular file. A run may append to a device or pipe (a stream
    /// nothing reads back as a journal), but never to a regular file another user could have written.</param>
    public static string? Problem(int fd, bool toRead)
    {
        if (Libc.FStat(fd, out var status) != 0)
        {
            return Libc.Message(Libc.LastErrno);
        }

        return !status.IsRegularFile && !toRead ? null : Problem(status, Libc.GetEuid());
    }

    internal static string? Problem(in StatxBuffer status, uint euid)
    {
        if (!status.IsRegularFile)
        {
            return "it is not a regular file";
        }

        if ((status.Mode & OtherWrite) != 0)
        {
            return "every user can write it (chmod o-w, after checking its lines)";
        }

        if (euid == 0 && (status.Uid != 0 || (status.Mode & GroupWrite) != 0))
        {
            return status.Uid != 0
                ? string.Create(CultureInfo.InvariantCulture, $"it is owned by uid {status.Uid}, and root acts only on a journal only root can write")
                : "its group can write it, and root acts only on a journal only root can write (chmod g-w, after checking its lines)";
        }

        return euid != 0 && status.Uid != euid && status.Uid != 0
            ? string.Create(CultureInfo.InvariantCulture, $"it is owned by uid {status.Uid}, not by you")
            : null;
    }

    /// <summary>Opens <paramref name="path"/> (no link followed) and returns it when trusted; throws otherwise.</summary>
    /// <param name="path">The journal.</param>
    /// <param name="flags">How to open it.</param>
    /// <param name="forUndo">Whether undo opens it (to read, or to append its own lines): a regular file only.</param>
    public static int OpenTrusted(string path, int flags, bool forUndo = true)
    {
        var fd = Libc.Open(path, flags | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0);
        if (fd < 0)
        {
            var errno = Libc.LastErrno;
            var message = $"cannot open the journal {path}: {Libc.Message(errno)}";
            throw errno switch
            {
                Libc.ENOENT => new FileNotFoundException(message, path),
                Libc.ELOOP => new UnauthorizedAccessException($"refusing the journal {path}: it is a symbolic link"),
                1 or 13 => new UnauthorizedAccessException(message), // EPERM, EACCES
                _ => new IOException(message),
            };
        }

        if (Problem(fd, toRead: forUndo) is { } problem)
        {
            _ = Libc.Close(fd);
            throw new UnauthorizedAccessException($"refusing the journal {path}: {problem}");
        }

        return fd;
    }
}
