namespace Dedup.Core.Paths;

/// <summary>What a path names when a scan or rule checks it.</summary>
internal enum PathKind
{
    Missing,
    Folder,
    File,

    /// <summary>The file system refused to say because access is denied (EACCES, EPERM) on a folder on the way.</summary>
    AccessDenied,

    /// <summary>The file system could not say for another reason (EIO, ELOOP, ENAMETOOLONG, a stale mount, …).</summary>
    Unreachable,
}

/// <summary>
/// Whether a path names a folder, by the kernel's bytes on Linux (<see cref="KernelNames"/>): <see cref="Directory.Exists(string)"/>
/// encodes an escaped byte as U+FFFD, so it called a folder named with byte 0xff missing, or answered for another folder
/// literally named with U+FFFD. Links are followed, as for roots and keep rules. Only "no such file" means missing: a
/// refusal or any other error is said as it is, rather than send the user to check a mount.
/// </summary>
internal static class PathKinds
{
    public static PathKind Of(string path) => Of(path, out _);

    /// <summary>
    /// Why a path that is not a folder cannot be scanned as a root that is a file, or <see langword="null"/> when it can:
    /// a regular file (Linux), or a symbolic link to one when links are followed. A FIFO, socket or device is refused
    /// without being opened, as the walk never opens one; elsewhere a root must be a folder.
    /// </summary>
    public static string? FileRootProblem(string path, bool followLinks)
    {
        if (!OperatingSystem.IsLinux())
        {
            return "is a file, not a folder";
        }

        if (Interop.Libc.Statx(Interop.Libc.AT_FDCWD, path, Interop.Libc.AT_SYMLINK_NOFOLLOW, Interop.Libc.STATX_BASIC_STATS, out var named) != 0)
        {
            return System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(Interop.Libc.LastErrno);
        }

        if (named.IsSymbolicLink && !followLinks)
        {
            return "is a symbolic link to a file, not followed (as in a folder, links to files are followed only when following symbolic links)";
        }

        if (Interop.Libc.Statx(Interop.Libc.AT_FDCWD, path, 0, Interop.Libc.STATX_BASIC_STATS, out var status) != 0)
        {
            return System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(Interop.Libc.LastErrno);
        }

        return status.IsRegularFile ? null : "is not a regular file or folder (a FIFO, socket or device is never opened)";
    }

    /// <summary>As <see cref="Of(string)"/>, with the system's message when the kind is <see cref="PathKind.AccessDenied"/> or <see cref="PathKind.Unreachable"/>.</summary>
    public static PathKind Of(string path, out string? reason)
    {
        reason = null;
        if (OperatingSystem.IsLinux())
        {
            if (Interop.Libc.Statx(Interop.Libc.AT_FDCWD, path, 0, Interop.Libc.STATX_BASIC_STATS, out var status) == 0)
            {
                return status.IsDirectory ? PathKind.Folder : PathKind.File;
            }

            var errno = Interop.Libc.LastErrno;
            if (errno is Interop.Libc.ENOENT or Interop.Libc.ENOTDIR)
            {
                return PathKind.Missing;
            }

            reason = System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(errno);
            return errno is Interop.Libc.EACCES or Interop.Libc.EPERM ? PathKind.AccessDenied : PathKind.Unreachable;
        }

        // Stryker disable all : Windows and macOS only (the Wine and macOS runs cover it)
        if (Directory.Exists(path))
        {
            return PathKind.Folder;
        }

        if (File.Exists(path))
        {
            return PathKind.File;
        }

        try
        {
            _ = File.GetAttributes(path); // Exists says false for every failure; this says which
            return PathKind.Missing;
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return PathKind.Missing;
        }
        catch (UnauthorizedAccessException e)
        {
            reason = e.Message;
            return PathKind.AccessDenied;
        }
        catch (IOException e)
        {
            reason = e.Message;
            return PathKind.Unreachable;
        }

        // Stryker restore all
    }
}
