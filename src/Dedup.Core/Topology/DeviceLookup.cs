using System.Runtime.InteropServices;
using System.Text;
using Dedup.Core.Interop;

namespace Dedup.Core.Topology;

/// <summary>
/// "Which device is this path on", answered in one place and in the packing <see cref="Enumeration.FileIdentity.Device"/>
/// uses: on Linux <c>(major &lt;&lt; 32) | minor</c> from <c>statx</c> (following links, as a scan root is followed),
/// on Windows the volume serial. The builder's drive-kind overrides, the topology, the portable enumerator and the
/// trash all ask here.
/// </summary>
internal static unsafe class DeviceLookup
{
    /// <summary>The device of <paramref name="path"/>; <see langword="false"/> with the reason when it cannot be told.</summary>
    public static bool TryGet(string path, out ulong device, out string problem)
    {
        device = 0;
        problem = string.Empty;
        if (OperatingSystem.IsLinux())
        {
            var bytes = Paths.KernelNames.ToNullTerminated(path);
            if (bytes is null)
            {
                problem = "the path cannot be passed to the system without changing it";
                return false;
            }

            StatxBuffer stx;
            fixed (byte* p = bytes)
            {
                if (Libc.Statx(Libc.AT_FDCWD, p, 0, Libc.STATX_BASIC_STATS, &stx) != 0)
                {
                    problem = Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError());
                    return false;
                }
            }

            device = stx.Device;
            return true;
        }

        if (OperatingSystem.IsWindows())
        {
            if (WindowsDriveTopology.TryGetVolumeSerial(path, out var serial))
            {
                device = serial;
                return true;
            }

            problem = "the volume serial cannot be read";
            return false;
        }

        problem = "devices are not told apart on this platform";
        return false;
    }

    /// <summary>The device of <paramref name="path"/>, or of its nearest existing parent (a folder about to be created); <see langword="null"/> when none can be told.</summary>
    public static ulong? OfNearestExisting(string path)
    {
        for (var current = path; !string.IsNullOrEmpty(current); current = Path.GetDirectoryName(current))
        {
            if (TryGet(current, out var device, out _))
            {
                return device;
            }
        }

        return null;
    }
}
