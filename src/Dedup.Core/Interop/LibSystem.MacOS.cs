// Compiled on every platform; untested here (no macOS machine): open(2) without following a final symbolic
// link and fstat(2) for the file's type and identity, for the macOS re-checks before Delete and Trash.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Interop;

/// <summary>The few libSystem calls the BCL does not expose on macOS.</summary>
[SupportedOSPlatform("macos")]
internal static partial class LibSystem
{
    // The install name: on macOS 11+ it lives in the dyld shared cache, where dlopen finds it by this path.
    private const string LibraryName = "/usr/lib/libSystem.B.dylib";

    // Darwin's values (not Linux's).
    public const int O_RDONLY = 0x0;
    public const int O_NONBLOCK = 0x4;
    public const int O_NOFOLLOW = 0x100;
    public const int O_CLOEXEC = 0x1000000;

    /// <summary>
    /// open(2) is variadic; Apple arm64 passes variadic arguments on the stack, so the optional mode is not
    /// declared at all (it is read only with O_CREAT, which is never passed here).
    /// </summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Open(string path, int flags);
#else
    [DllImport(LibraryName, EntryPoint = "open", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int Open(string path, int flags);
#endif

    /// <summary>arm64 has only the 64-bit-inode <c>struct stat</c>, under the plain name.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fstat", SetLastError = true)]
    private static partial int FStatArm64(int fd, out DarwinStat status);
#else
    [DllImport(LibraryName, EntryPoint = "fstat", SetLastError = true, ExactSpelling = true)]
    private static extern int FStatArm64(int fd, out DarwinStat status);
#endif

    /// <summary>On x86-64 the plain name is the legacy 32-bit-inode layout; the 64-bit-inode one has this suffix.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fstat$INODE64", SetLastError = true)]
    private static partial int FStatX64(int fd, out DarwinStat status);
#else
    [DllImport(LibraryName, EntryPoint = "fstat$INODE64", SetLastError = true, ExactSpelling = true)]
    private static extern int FStatX64(int fd, out DarwinStat status);
#endif

    /// <summary>fstat(2) with the 64-bit-inode layout; returns 0 or an errno.</summary>
    public static int FStat(int fd, out DarwinStat status)
    {
        var rc = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? FStatX64(fd, out status) : FStatArm64(fd, out status);
        return rc == 0 ? 0 : Marshal.GetLastPInvokeError();
    }
}

/// <summary>Darwin's 144-byte 64-bit-inode <c>struct stat</c>; only the fields we read are named.</summary>
[StructLayout(LayoutKind.Explicit, Size = 144)]
internal struct DarwinStat
{
    [FieldOffset(0)] public int Device;
    [FieldOffset(4)] public ushort Mode;
    [FieldOffset(8)] public ulong Inode;
}
