// Compiled on every platform; the renames run under Wine in the Windows tests.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Interop;
using static Dedup.Core.Topology.WindowsStorageLayout;

namespace Dedup.Core.Linking.Undo;

/// <summary>The Windows renames of the portable undo: MoveFileExW, written through, never copying across volumes.</summary>
internal sealed partial class PortableUndoEngine
{
    private const int ErrorFileExists = 80;
    private const int ErrorAlreadyExists = 183;

    /// <summary>The verified copy over the name (<c>MOVEFILE_REPLACE_EXISTING</c>), only after the name's re-check.</summary>
    [SupportedOSPlatform("windows")]
    private static string? ReplaceNameWindows(string from, string to) =>
        Kernel32.MoveFileEx(WithLongPathPrefix(from), WithLongPathPrefix(to), Kernel32.MOVEFILE_REPLACE_EXISTING | Kernel32.MOVEFILE_WRITE_THROUGH)
            ? null
            : Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError());

    /// <summary>Out of the Recycle Bin to a free name: without <c>MOVEFILE_REPLACE_EXISTING</c> a taken name fails.</summary>
    [SupportedOSPlatform("windows")]
    private static string? MoveBackWindows(string from, string to)
    {
        if (Kernel32.MoveFileEx(WithLongPathPrefix(from), WithLongPathPrefix(to), Kernel32.MOVEFILE_WRITE_THROUGH))
        {
            return null;
        }

        var error = Marshal.GetLastPInvokeError();
        return error is ErrorFileExists or ErrorAlreadyExists ? "the name is taken" : Marshal.GetPInvokeErrorMessage(error);
    }
}
