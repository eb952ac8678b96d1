using Dedup.Core.Enumeration;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

/// <summary>What kind of file an open handle refers to.</summary>
internal enum PortableFileKind
{
    RegularFile,
    Directory,

    /// <summary>A symbolic link or (on Windows) another reparse point, opened as itself.</summary>
    Link,
    Other,
}

/// <summary>What an open handle says about its file: its kind and its identity (volume and file number).</summary>
internal readonly record struct PortableFileStatus(PortableFileKind Kind, FileIdentity Identity);

/// <summary>
/// The platform part of the Windows and macOS re-checks: opens a name itself for reading (never what a final
/// symbolic link or reparse point leads to; others may still read, write and delete it) and reads the kind
/// and identity of the open file. Size and modification time come from the BCL, as in the scan. The Linux
/// part exists so the portable re-checks can be tested here.
/// </summary>
internal static partial class PortableFile
{
    /// <summary>Opens <paramref name="path"/> without following a final link; <see langword="null"/> and the system's message on failure.</summary>
    public static SafeFileHandle? TryOpen(string path, out string error)
    {
        // Stryker disable once Block : Windows only (Wine test project)
        if (OperatingSystem.IsWindows())
        {
            return TryOpenWindows(path, out error);
        }

        // Stryker disable once Block : macOS only
        if (OperatingSystem.IsMacOS())
        {
            return TryOpenMacOS(path, out error);
        }

        return OperatingSystem.IsLinux() ? TryOpenLinux(path, out error) : throw new PlatformNotSupportedException();
    }

    /// <summary>The kind and identity of the open file; throws <see cref="IOException"/> when the system cannot tell.</summary>
    public static PortableFileStatus StatusOf(SafeFileHandle handle)
    {
        // Stryker disable once Block : Windows only (Wine test project)
        if (OperatingSystem.IsWindows())
        {
            return StatusWindows(handle);
        }

        // Stryker disable once Block : macOS only
        if (OperatingSystem.IsMacOS())
        {
            return StatusMacOS(handle);
        }

        return OperatingSystem.IsLinux() ? StatusLinux(handle) : throw new PlatformNotSupportedException();
    }

    // The file-type bits are the same on Linux and Darwin.
    private static PortableFileKind KindOfUnixMode(ushort mode) => (mode & Interop.Libc.S_IFMT) switch
    {
        Interop.Libc.S_IFREG => PortableFileKind.RegularFile,
        Interop.Libc.S_IFDIR => PortableFileKind.Directory,
        Interop.Libc.S_IFLNK => PortableFileKind.Link,
        _ => PortableFileKind.Other,
    };
}
