using System.Globalization;

namespace Dedup.Core.Reporting;

/// <summary>Byte counts for people: <c>3000000</c> → <c>2.9 MiB</c> (binary units, one decimal; bytes below 1 KiB).</summary>
internal static class ByteCount
{
    private static readonly string[] s_units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

    public static string Format(long bytes)
    {
        double value = bytes;
        var unit = 0;
        while (value >= 1024 && unit < s_units.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit == 0
            ? string.Create(CultureInfo.InvariantCulture, $"{bytes} B")
            : string.Create(CultureInfo.InvariantCulture, $"{value:0.0} {s_units[unit]}");
    }
}
