using System.Runtime.Versioning;

namespace Dedup.Core.Caching;

internal static partial class BootMark
{
    /// <summary>The kernel's random id of this boot: not the boot time, which moves when the clock is set.</summary>
    internal const string BootIdPath = "/proc/sys/kernel/random/boot_id";

    [SupportedOSPlatform("linux")]
    private static string ReadLinux()
    {
        var id = File.ReadAllText(BootIdPath).Trim();
        return id.Length != 0 ? ";boot=" + id : throw new IOException($"{BootIdPath} is empty");
    }
}
