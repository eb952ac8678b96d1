using System.Runtime.InteropServices;

namespace Dedup.Cli;

/// <summary>
/// Raises the soft open-file limit to the hard one at start, as the .NET runtime does for the apps it compiles just in
/// time and a NativeAOT app does not. Under a login's usual soft limit of 1,024 the library's folder-descriptor cache got
/// no room (it takes half of what the limit leaves after the scan's own files), so every file was opened by its whole
/// path. Linux only: macOS caps the limit below its hard value, and Windows has none.
/// </summary>
internal static unsafe class OpenFileLimit
{
    private const int RlimitNofile = 7;

    public static void Raise()
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        RLimit limit;
        if (GetRLimit(RlimitNofile, &limit) == 0 && limit.Current < limit.Maximum)
        {
            limit.Current = limit.Maximum;
            _ = SetRLimit(RlimitNofile, &limit); // refused: the scan runs with a smaller cache, as before
        }
    }

    [DllImport("libc", EntryPoint = "getrlimit")]
    private static extern int GetRLimit(int resource, RLimit* limit);

    [DllImport("libc", EntryPoint = "setrlimit")]
    private static extern int SetRLimit(int resource, RLimit* limit);

    [StructLayout(LayoutKind.Sequential)]
    private struct RLimit
    {
        public ulong Current;
        public ulong Maximum;
    }
}
