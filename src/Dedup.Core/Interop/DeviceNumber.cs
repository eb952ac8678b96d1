using System.Runtime.InteropServices;
using System.Text;

namespace Dedup.Core.Interop;

/// <summary>The device number of a path, packed as in <see cref="Enumeration.FileIdentity.Device"/>.</summary>
internal static unsafe class DeviceNumber
{
    public static ulong Of(string path)
    {
        var bytes = Encoding.UTF8.GetBytes(path + "\0");
        StatxBuffer stx;
        fixed (byte* p = bytes)
        {
            if (Libc.Statx(Libc.AT_FDCWD, p, 0, Libc.STATX_BASIC_STATS, &stx) != 0)
            {
                throw new IOException($"Cannot stat '{Paths.PathText.Escape(path)}': {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
            }
        }

        return stx.Device;
    }
}
