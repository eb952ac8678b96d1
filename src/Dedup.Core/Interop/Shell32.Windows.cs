// Compiled on every platform; untested here (no Windows machine): SHFileOperationW, used to move a file to
// the Recycle Bin. The struct layout is checked by a test that runs on any 64-bit platform.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Interop;

/// <summary>The shell call that moves files to the Recycle Bin.</summary>
[SupportedOSPlatform("windows")]
internal static unsafe partial class Shell32
{
    public const uint FO_DELETE = 0x3;

    public const ushort FOF_SILENT = 0x4;
    public const ushort FOF_NOCONFIRMATION = 0x10;
    public const ushort FOF_ALLOWUNDO = 0x40;
    public const ushort FOF_NOERRORUI = 0x400;

#if NET
    [LibraryImport("shell32.dll", EntryPoint = "SHFileOperationW")]
    public static partial int SHFileOperation(ShFileOpStruct* operation);
#else
    [DllImport("shell32.dll", EntryPoint = "SHFileOperationW", ExactSpelling = true)]
    public static extern int SHFileOperation(ShFileOpStruct* operation);
#endif
}

/// <summary>
/// <c>SHFILEOPSTRUCTW</c> as laid out in a 64-bit process (natural alignment, 56 bytes). A 32-bit process packs
/// it to 1 byte (shellapi.h includes pshpack1.h there), so the Recycle Bin refuses to run in one.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct ShFileOpStruct
{
    public nint Window;
    public uint Function;
    public nint From;
    public nint To;
    public ushort Flags;
    public int AnyOperationsAborted;
    public nint NameMappings;
    public nint ProgressTitle;
}
