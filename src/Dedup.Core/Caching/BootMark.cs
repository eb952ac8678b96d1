namespace Dedup.Core.Caching;

/// <summary>
/// Which boot of the system a scan runs in, as part of the cache's format: entries written in an earlier boot are not
/// trusted, since a crash (power loss, panic) can leave a file with bytes written after its entry was saved under the
/// stamp the entry holds. On ext4 (<c>data=ordered</c>) an <c>fdatasync</c>'d same-size write puts the bytes on disk
/// before the journal commits the new mtime and ctime; the crash brings back the old ones (docs/cache.md, "A crash").
/// Every crash ends a boot, so within one boot the in-memory stamps the scan reads always moved with the bytes.
/// </summary>
internal static partial class BootMark
{
    private static readonly Lazy<string> Mark = new(Read, LazyThreadSafetyMode.ExecutionAndPublication);

    /// <summary>
    /// <c>;boot=</c> and this boot's id on Linux; empty elsewhere, where the scan records no change time, so no entry is
    /// trusted at all.
    /// </summary>
    /// <exception cref="IOException">Linux did not say which boot this is (no <c>/proc</c>).</exception>
    /// <exception cref="UnauthorizedAccessException">Reading the boot id was refused.</exception>
    public static string Current => Mark.Value;

    private static string Read() => OperatingSystem.IsLinux() ? ReadLinux() : string.Empty;
}
