using Dedup.Core.Interop;

namespace Dedup.Core.Reporting;

/// <summary>How a scan classifies a failed system call (kept here, not in Interop, so data flows one way: Interop knows no reporting types).</summary>
internal static class ScanErrorKinds
{
    /// <summary>The kind of error an errno stands for (Linux and macOS numbers).</summary>
    public static ScanErrorKind FromErrno(int errno) => errno switch
    {
        Libc.ENOENT or Libc.ENOTDIR => ScanErrorKind.NotFound,
        Libc.EACCES or Libc.EPERM => ScanErrorKind.AccessDenied,
        Libc.ELOOP => ScanErrorKind.SymbolicLinkLoop,
        _ => ScanErrorKind.IOError,
    };
}
