using System.Globalization;

namespace Dedup.Cli.Acting;

/// <summary>A count with its noun, singular for one: "1 file", "2 files".</summary>
internal static class Counts
{
    public static string Of(long count, string one, string many) =>
        string.Create(CultureInfo.InvariantCulture, $"{count} {(count == 1 ? one : many)}");
}
