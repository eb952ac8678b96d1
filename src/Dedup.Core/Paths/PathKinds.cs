namespace Dedup.Core.Paths;

/// <summary>What a path names when a scan or rule checks it.</summary>
internal enum PathKind
{
    Missing,
    Folder,
    File,
}

/// <summary>
/// Whether a path names a folder, by the kernel's bytes on Linux (<see cref="KernelNames"/>): <see cref="Directory.Exists(string)"/>
/// encodes an escaped byte as U+FFFD, so it called a folder named with byte 0xff missing, or answered for another folder
/// literally named with U+FFFD. Links are followed, as for roots and keep rules.
/// </summary>
internal static class PathKinds
{
    public static PathKind Of(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            return Interop.Libc.Statx(Interop.Libc.AT_FDCWD, path, 0, Interop.Libc.STATX_BASIC_STATS, out var status) != 0 ? PathKind.Missing
                : status.IsDirectory ? PathKind.Folder
                : PathKind.File;
        }

        return Directory.Exists(path) ? PathKind.Folder : File.Exists(path) ? PathKind.File : PathKind.Missing;
    }
}
