#if !NET
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core;

/// <summary>netstandard2.0 only: the <see cref="Path"/>, <see cref="File"/> and file-info members net8+ has.</summary>
internal static class PathPolyfills
{
    private static bool IgnoreCase => RuntimeInformation.IsOSPlatform(OSPlatform.Windows);

    extension(Path)
    {
        public static string Join(string? path1, string? path2)
        {
            if (string.IsNullOrEmpty(path1))
            {
                return path2 ?? string.Empty;
            }

            if (string.IsNullOrEmpty(path2))
            {
                return path1!;
            }

            return IsSeparator(path1![^1]) || IsSeparator(path2![0]) ? path1 + path2 : path1 + Path.DirectorySeparatorChar + path2;
        }

        public static bool Exists(string? path) => File.Exists(path) || Directory.Exists(path);

        public static string GetFullPath(string path, string basePath) =>
            Path.IsPathRooted(path) ? Path.GetFullPath(path) : Path.GetFullPath(Path.Combine(basePath, path));

        public static string GetRelativePath(string relativeTo, string path)
        {
            var from = Path.GetFullPath(relativeTo).Split(Separators, StringSplitOptions.RemoveEmptyEntries);
            var to = Path.GetFullPath(path).Split(Separators, StringSplitOptions.RemoveEmptyEntries);
            var comparison = IgnoreCase ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal;
            var common = 0;
            while (common < from.Length && common < to.Length && string.Equals(from[common], to[common], comparison))
            {
                common++;
            }

            if (common == 0 && IgnoreCase)
            {
                return path; // another drive
            }

            var parts = Enumerable.Repeat("..", from.Length - common).Concat(to.Skip(common)).ToArray();
            return parts.Length == 0 ? "." : string.Join(Path.DirectorySeparatorChar.ToString(), parts);
        }
    }

    extension(File)
    {
        public static SafeFileHandle OpenHandle(string path, FileMode mode, FileAccess access, FileShare share)
        {
            if (mode != FileMode.Open || access != FileAccess.Read)
            {
                throw new NotSupportedException("netstandard2.0: only opening an existing file for reading.");
            }

            // FileStream's handle would be closed by its finalizer, so open the handle ourselves.
            var stream = new FileStream(path, mode, access, share, bufferSize: 1);
            var handle = new SafeFileHandle(stream.SafeFileHandle.DangerousGetHandle(), ownsHandle: true);
            stream.SafeFileHandle.SetHandleAsInvalid();
            GC.SuppressFinalize(stream);
            return handle;
        }

        public static DateTime GetLastWriteTimeUtc(SafeFileHandle handle)
        {
            if (OperatingSystem.IsWindows() && Interop.Kernel32.GetFileInformationByHandle(handle, out var information))
            {
                return DateTime.FromFileTimeUtc(((long)information.LastWriteTimeHigh << 32) | information.LastWriteTimeLow);
            }

            throw new PlatformNotSupportedException("netstandard2.0: a handle's write time is read on Windows only (Linux uses statx).");
        }
    }

    extension(FileSystemInfo info)
    {
        /// <summary>The link's target as stored, or <see langword="null"/> when <paramref name="info"/> is not a link.</summary>
        public string? LinkTarget => (info.Attributes & FileAttributes.ReparsePoint) == 0 ? null : ReadLink(info.FullName) ?? string.Empty;

        public FileSystemInfo? ResolveLinkTarget(bool returnFinalTarget)
        {
            if (info.LinkTarget is null)
            {
                return null;
            }

            var resolved = OperatingSystem.IsLinux() ? Interop.Libc.RealPathOf(info.FullName, out _) : null;
            return resolved is null ? null : info is DirectoryInfo ? new DirectoryInfo(resolved) : new FileInfo(resolved);
        }
    }

    private static readonly char[] Separators = [Path.DirectorySeparatorChar, Path.AltDirectorySeparatorChar];

    private static bool IsSeparator(char c) => c == Path.DirectorySeparatorChar || c == Path.AltDirectorySeparatorChar;

    private static unsafe string? ReadLink(string path)
    {
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            return null;
        }

        var bytes = Dedup.Core.Paths.KernelNames.ToNullTerminated(path);
        if (bytes is null)
        {
            return null;
        }

        fixed (byte* p = bytes)
        {
            return Interop.Libc.ReadLinkTarget(Interop.Libc.AT_FDCWD, p);
        }
    }
}
#endif
