using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Interop;

/// <summary>
/// Positional reads shared by the scan, the media locators and the linkers' verification. On Linux a direct
/// <c>pread</c> on the handle's descriptor: for a handle made from a raw descriptor,
/// <see cref="RandomAccess.Read(SafeFileHandle, Span{byte}, long)"/> first asks the kernel whether the file is
/// seekable (an extra <c>lseek</c> per open file, measurable on many files).
/// </summary>
internal static unsafe class PositionalRead
{
    /// <summary>One read at <paramref name="offset"/>; returns the bytes read (0 at end of file).</summary>
    public static int Read(SafeFileHandle handle, Span<byte> destination, long offset)
    {
        if (!OperatingSystem.IsLinux())
        {
            return RandomAccess.Read(handle, destination, offset);
        }

        var added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            fixed (byte* p = destination)
            {
                while (true)
                {
                    var read = Libc.PRead((int)handle.DangerousGetHandle(), p, (nuint)destination.Length, offset);
                    if (read >= 0)
                    {
                        return (int)read;
                    }

                    ThrowUnlessInterrupted();
                }
            }
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    /// <summary>One <c>pread</c> at <paramref name="offset"/> of a bare descriptor (Linux); returns the bytes read (0 at end of file).</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public static int Read(int descriptor, Span<byte> destination, long offset)
    {
        fixed (byte* p = destination)
        {
            while (true)
            {
                var read = Libc.PRead(descriptor, p, (nuint)destination.Length, offset);
                if (read >= 0)
                {
                    return (int)read;
                }

                ThrowUnlessInterrupted();
            }
        }
    }

    /// <summary>Reads until <paramref name="destination"/> is full or the file ends; returns the bytes read.</summary>
    public static int ReadFull(SafeFileHandle handle, Span<byte> destination, long offset)
    {
        var total = 0;
        while (total < destination.Length)
        {
            var read = Read(handle, destination[total..], offset + total);
            if (read <= 0)
            {
                break;
            }

            total += read;
        }

        return total;
    }

    /// <summary>Throws the errno of the last failed call as an <see cref="IOException"/>, unless it was <c>EINTR</c> (retry).</summary>
    public static void ThrowUnlessInterrupted()
    {
        var errno = Marshal.GetLastPInvokeError();
        if (errno != Libc.EINTR)
        {
            throw new IOException(Marshal.GetPInvokeErrorMessage(errno), errno);
        }
    }
}
