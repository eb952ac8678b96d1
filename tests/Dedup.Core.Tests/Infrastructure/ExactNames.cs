using System.Runtime.InteropServices;
using Xunit;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// Folders and files made with the exact bytes of their names through libc (Linux), not through .NET's string paths
/// nor the code under test: names that are not UTF-8 cannot be made any other way.
/// </summary>
internal static class ExactNames
{
    public static void CreateFolder(byte[] path)
    {
        Assert.True(Mkdir([.. path, 0], 0x1ED) == 0, $"mkdir: errno {Marshal.GetLastPInvokeError()}"); // 0755
    }

    public static void WriteFile(byte[] path, byte[] content)
    {
        var fd = Open([.. path, 0], 0x41 | 0x80 | 0x80000, 0x1A4); // O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644
        Assert.True(fd >= 0, $"open: errno {Marshal.GetLastPInvokeError()}");
        try
        {
            Assert.Equal(content.Length, (int)Write(fd, content, content.Length));
        }
        finally
        {
            _ = Close(fd);
        }
    }

    [DllImport("libc", EntryPoint = "mkdir", SetLastError = true)]
    private static extern int Mkdir(byte[] path, int mode);

    [DllImport("libc", EntryPoint = "open", SetLastError = true)]
    private static extern int Open(byte[] path, int flags, int mode);

    [DllImport("libc", EntryPoint = "write", SetLastError = true)]
    private static extern nint Write(int fd, byte[] buffer, nint count);

    [DllImport("libc", EntryPoint = "close")]
    private static extern int Close(int fd);
}
