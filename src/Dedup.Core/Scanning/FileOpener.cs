using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

/// <summary>
/// Opens candidate files for reading and checks they are still the files the scan listed (same identity,
/// size and modification time). Platform code lives in the <c>.Linux.cs</c> and <c>.Portable.cs</c> parts.
/// </summary>
internal static partial class FileOpener
{
    /// <summary>Opens <paramref name="file"/>; on failure reports why and returns <see langword="null"/>.</summary>
    public static SafeFileHandle? TryOpen(ScannedFile file, ScanState state)
    {
        return OperatingSystem.IsLinux() ? TryOpenLinux(file, state) : TryOpenPortable(file, state);
    }

    /// <summary>
    /// Tells the kernel how a file will be read (Linux; a hint, failures ignored): probes read 4 KiB at each end, so
    /// readahead around them is wasted disk reads on a cold cache; full comparisons read front to back.
    /// </summary>
    public static void Advise(SafeFileHandle handle, bool sequential)
    {
        if (OperatingSystem.IsLinux())
        {
            _ = Interop.Libc.FAdvise((int)handle.DangerousGetHandle(), 0, 0, sequential ? Interop.Libc.POSIX_FADV_SEQUENTIAL : Interop.Libc.POSIX_FADV_RANDOM);
        }
    }

    /// <summary>Whether the file still has the size and time it was listed with (a last check before reporting).</summary>
    public static bool IsUnchanged(ScannedFile file, SafeFileHandle? handle, ScanState state)
    {
        return OperatingSystem.IsLinux() ? IsUnchangedLinux(file, handle, state) : IsUnchangedPortable(file, state);
    }

    private static void ReportChanged(ScannedFile file, ScanState state, string what) =>
        state.ReportError(file.Path.ToString(), ScanErrorKind.Changed, $"File changed during the scan ({what}); left out");
}
