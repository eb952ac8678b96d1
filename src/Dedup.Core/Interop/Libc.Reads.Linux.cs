using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Interop;

// Reads that only take what the page cache holds (the enumerator's content keys).
internal static unsafe partial class Libc
{
    /// <summary><c>RWF_NOWAIT</c>: fail with <c>EAGAIN</c> rather than wait for the disk (Linux 4.14+ for cached reads).</summary>
    public const int RWF_NOWAIT = 0x8;

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "preadv64v2", SetLastError = true)]
    public static partial nint PReadV2(int fd, IoVec* iov, int iovcnt, long offset, int flags);
#else
    [DllImport(LibraryName, EntryPoint = "preadv64v2", SetLastError = true, ExactSpelling = true)]
    public static extern nint PReadV2(int fd, IoVec* iov, int iovcnt, long offset, int flags);
#endif
}
