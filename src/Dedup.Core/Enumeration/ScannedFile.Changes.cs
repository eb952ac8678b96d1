using System.Globalization;

namespace Dedup.Core.Enumeration;

public sealed partial class ScannedFile
{
    /// <summary>
    /// Why the file the scan opened is not the one listed, in the words of a scan error; empty when it is. Its size
    /// must be the listed one, and its modification time too at the precision the listed time has: to 100 ns
    /// (<see cref="LastWriteTimeUtc"/>), or, for a custom enumerator's listing, cut to whole microseconds, milliseconds
    /// or seconds when the listed time is whole in that unit, as the times of tar, rsync and databases are (a later
    /// change moves the time past the unit).
    /// Both values are shown, and the listing named when it is not the library's own.
    /// </summary>
    /// <param name="foundLength">The size the file system gives now.</param>
    /// <param name="foundWriteTimeNs">The modification time it gives now, nanoseconds since the Unix epoch.</param>
    /// <param name="source">The enumerator that listed the file (<see cref="SourceName"/>), or <see langword="null"/> for the library's walk.</param>
    internal string DescribeChange(long foundLength, long foundWriteTimeNs, string? source)
    {
        // Called for every file checked: nothing is formatted unless the file changed.
        if (foundLength != Length)
        {
            return $"size {Length} listed{By(source)} became {foundLength}";
        }

        var listedNs = LastWriteTimeNs;
        // The library's walk lists the kernel's own time: compared exactly, a whole second there is no coarser listing.
        return FileTable.ToDateTime(foundWriteTimeNs) == LastWriteTimeUtc || (source is not null && IsSameAtListedPrecision(listedNs, foundWriteTimeNs))
            ? string.Empty
            : $"modified: listed{By(source)} {FormatTime(listedNs)}, found {FormatTime(foundWriteTimeNs)}";
    }

    private static string By(string? source) => source is null ? string.Empty : " by " + source;

    /// <summary>The name a scan error gives the listing: the enumerator's type, or <see langword="null"/> for the library's walk.</summary>
    internal static string? SourceName(IFileEnumerator enumerator) =>
        enumerator is ITableSource ? null : enumerator.GetType().FullName ?? enumerator.GetType().Name;

    /// <summary>Whether <paramref name="foundNs"/> cut to a unit <paramref name="listedNs"/> is whole in (seconds, milliseconds, microseconds) equals it.</summary>
    private static bool IsSameAtListedPrecision(long listedNs, long foundNs)
    {
        foreach (var unit in Units)
        {
            if (listedNs % unit == 0 && foundNs - Mod(foundNs, unit) == listedNs)
            {
                return true;
            }
        }

        return false;
    }

    private static readonly long[] Units = [1_000_000_000, 1_000_000, 1_000];

    private static long Mod(long value, long unit) => ((value % unit) + unit) % unit;

    /// <summary>UTC to the nanosecond (<c>2026-11-29T10:00:00.123456789Z</c>): DateTime's "o" stops at 100 ns, which hides a difference below it.</summary>
    private static string FormatTime(long unixNs)
    {
        var fraction = Mod(unixNs, 1_000_000_000);
        var seconds = FileTable.ToDateTime(unixNs - fraction);
        return seconds.ToString("yyyy-MM-dd'T'HH:mm:ss", CultureInfo.InvariantCulture) + "." + fraction.ToString("D9", CultureInfo.InvariantCulture) + "Z";
    }
}
