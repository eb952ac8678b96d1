using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Cli.Interop;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Cli.Output;

/// <summary>Which open descriptor reaches the report's target, and the calls that keep a replaced report's owner (over <see cref="Libc"/>).</summary>
[SupportedOSPlatform("linux")]
internal static unsafe class OutputFacts
{
    /// <summary>
    /// The descriptor open for writing that reaches the same file as <paramref name="target"/>: standard output or error
    /// first, then any other (a shell's <c>3&gt;&gt; log</c>); -1 if none. Decided by identity, whatever the path reads.
    /// </summary>
    public static int WritableDescriptorFor(Libc.FileStatus target)
    {
        var others = new List<int>();
        try
        {
            foreach (var entry in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
            {
                if (int.TryParse(Path.GetFileName(entry), out var fd) && fd > 2)
                {
                    others.Add(fd);
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // No /proc: standard output and error are still checked.
        }

        others.Sort();
        foreach (var fd in (int[])[1, 2, .. others])
        {
            if (Libc.StatusOf(fd) is { } facts && facts.SameFileAs(target) && Libc.Fcntl(fd, Libc.GetFlags) is >= 0 and var flags && (flags & Libc.AccessMode) != Libc.ReadOnly)
            {
                return fd;
            }
        }

        return -1;
    }

    /// <summary>Gives the open file <paramref name="handle"/> an owner and group (<c>fchown</c>).</summary>
    public static void SetOwner(SafeFileHandle handle, uint owner, uint group)
    {
        if (Libc.FChown(handle, owner, group) != 0)
        {
            throw new IOException($"cannot give the new report the owner ({owner}:{group}) of the one it replaces: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }
    }

    /// <summary>Writes all of <paramref name="buffer"/> to <paramref name="descriptor"/> with <c>write(2)</c>: at the descriptor's own offset, which the shell shares.</summary>
    public static void WriteAll(int descriptor, ReadOnlySpan<byte> buffer)
    {
        fixed (byte* start = buffer)
        {
            var done = 0;
            while (done < buffer.Length)
            {
                var written = Libc.Write(descriptor, start + done, (nuint)(buffer.Length - done));
                if (written < 0)
                {
                    var errno = Marshal.GetLastPInvokeError();
                    if (errno == Libc.Interrupted)
                    {
                        continue;
                    }

                    throw new IOException(Marshal.GetPInvokeErrorMessage(errno));
                }

                done += (int)written;
            }
        }
    }
}
