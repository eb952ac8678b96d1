using System.CommandLine.Parsing;
using System.Globalization;
using Dedup.Core;

namespace Dedup.Cli.Selection;

/// <summary>
/// Parses the numeric options (<c>--min-size</c>, <c>--max-size</c>, <c>--threads</c>) and checks their range in the
/// same step: a value that is malformed or out of range is a parse error, so it is reported as one usage line (exit 2).
/// A validator would have to read the value back, and reading a value that failed to parse throws.
/// </summary>
internal static class NumberValues
{
    private const string SizeForm = "a whole number of bytes with an optional K, M, G or T suffix, such as 4096 or 10M";

    /// <summary>
    /// Parses sizes such as <c>4096</c>, <c>4K</c>, <c>10M</c>, <c>1G</c> (binary units). Decimals (<c>1.5K</c>) are
    /// refused rather than rounded, like GNU find's <c>-size</c>: a size filter that silently means another size is a trap.
    /// </summary>
    public static long? ParseSize(ArgumentResult result)
    {
        if (result.Tokens.Count == 0)
        {
            return null;
        }

        var given = result.Tokens[0].Value;
        var text = given.Trim();
        var shift = 0;
        if (text.Length > 0)
        {
            shift = char.ToUpperInvariant(text[^1]) switch
            {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => 0,
            };
            text = shift == 0 ? text : text[..^1];
        }

        // NumberStyles.None: digits only, so no sign, no decimal point, no exponent, no hexadecimal, no thousands separator.
        if (!long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value))
        {
            result.AddError($"{OptionName(result)}: '{given}' is not a size ({SizeForm})");
            return null;
        }

        if (value > long.MaxValue >> shift)
        {
            result.AddError($"{OptionName(result)}: '{given}' is too large (at most {long.MaxValue} bytes, {long.MaxValue >> 40}T)");
            return null;
        }

        return value << shift;
    }

    /// <summary>Parses a thread count from 1 to <see cref="DuplicateFinderBuilder.MaxDegreeOfParallelismLimit"/>, the library's bound.</summary>
    public static int? ParseThreads(ArgumentResult result)
    {
        if (result.Tokens.Count == 0)
        {
            return null;
        }

        var given = result.Tokens[0].Value;
        if (!int.TryParse(given.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out var count)
            || count is < 1 or > DuplicateFinderBuilder.MaxDegreeOfParallelismLimit)
        {
            result.AddError($"{OptionName(result)}: '{given}' is not a thread count (a whole number from 1 to {DuplicateFinderBuilder.MaxDegreeOfParallelismLimit})");
            return null;
        }

        return count;
    }

    private static string OptionName(ArgumentResult result) => result.Parent is OptionResult option ? option.Option.Name : result.Argument.Name;
}
