using System.Runtime.InteropServices;
using Xunit;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// Counts opens with inotify (<c>IN_OPEN</c>): of one file, or of each file in one folder (a folder's events carry the
/// name). Events are read when asked, so a test sees what happened between its calls. Closes are watched too, though
/// not counted: inotify merges an event into an identical one still unread at the end of its queue, so two opens of one
/// file with nothing between them (a key pass, then the compare stage) would count as one.
/// </summary>
public sealed class OpenEvents : IDisposable
{
    private const int InOpen = 0x20;
    private const int InClose = 0x08 | 0x10; // IN_CLOSE_WRITE | IN_CLOSE_NOWRITE
    private const int InNonBlock = 0x800;
    private readonly int _fd;

    /// <param name="path">A file (its opens) or a folder (the opens of the files in it, by name).</param>
    public OpenEvents(string path)
    {
        _fd = InotifyInit1(InNonBlock);
        Assert.True(_fd >= 0, $"inotify_init1: errno {Marshal.GetLastPInvokeError()}");
        Assert.True(InotifyAddWatch(_fd, path, InOpen | InClose) >= 0, $"inotify_add_watch: errno {Marshal.GetLastPInvokeError()}");
    }

    /// <summary>Opens seen since the last call, by name; a watched file's own opens (or a folder's) under the empty name.</summary>
    public unsafe Dictionary<string, int> Counts()
    {
        var counts = new Dictionary<string, int>();
        var buffer = stackalloc byte[64 * 1024];
        nint read;
        while ((read = Read(_fd, buffer, 64 * 1024)) > 0)
        {
            for (var offset = 0; offset < read;)
            {
                var mask = *(uint*)(buffer + offset + 4);
                Assert.True((mask & (InOpen | InClose)) != 0, $"unexpected inotify event {mask:x}");
                var nameLength = (int)*(uint*)(buffer + offset + 12);
                if ((mask & InOpen) == 0)
                {
                    offset += 16 + nameLength;
                    continue;
                }

                var name = nameLength == 0 ? string.Empty : System.Text.Encoding.UTF8.GetString(MemoryMarshal.CreateReadOnlySpanFromNullTerminated(buffer + offset + 16));
                counts[name] = counts.GetValueOrDefault(name) + 1;
                offset += 16 + nameLength;
            }
        }

        return counts;
    }

    /// <summary>Opens of the watched file seen since the last call.</summary>
    public int Opens() => Counts().GetValueOrDefault(string.Empty);

    public void Dispose() => _ = Close(_fd);

    [DllImport("libc", EntryPoint = "inotify_init1", SetLastError = true)]
    private static extern int InotifyInit1(int flags);

    [DllImport("libc", EntryPoint = "inotify_add_watch", SetLastError = true)]
    private static extern int InotifyAddWatch(int fd, string path, int mask);

    [DllImport("libc", EntryPoint = "read", SetLastError = true)]
    private static extern unsafe nint Read(int fd, byte* buffer, nint count);

    [DllImport("libc", EntryPoint = "close")]
    private static extern int Close(int fd);
}
