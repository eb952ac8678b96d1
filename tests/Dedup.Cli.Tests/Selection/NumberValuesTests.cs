using System.CommandLine;
using Dedup.Cli.Selection;

namespace Dedup.Cli.Tests.Selection;

/// <summary>
/// <see cref="NumberValues"/> in process (UsageTests runs the same values through the real CLI): every accepted size is
/// the exact byte count, and every refused one is a parse error naming the option, never a silently different number.
/// </summary>
public sealed class NumberValuesTests
{
    [Theory]
    [InlineData("0", 0L)]
    [InlineData("4096", 4096L)]
    [InlineData(" 17 ", 17L)]
    [InlineData("1K", 1024L)]
    [InlineData("3k", 3072L)]
    [InlineData("10M", 10L << 20)]
    [InlineData("2m", 2L << 20)]
    [InlineData("1G", 1L << 30)]
    [InlineData("5g", 5L << 30)]
    [InlineData("7T", 7L << 40)]
    [InlineData("2t", 2L << 40)]
    [InlineData("8388607T", 8388607L << 40)]
    [InlineData("9223372036854775807", long.MaxValue)]
    public void A_size_is_its_exact_byte_count(string given, long bytes)
    {
        var (value, errors) = ParseSize(given);

        Assert.Empty(errors);
        Assert.Equal(bytes, value);
    }

    [Theory]
    [InlineData("1.5K")]
    [InlineData("-1")]
    [InlineData("+5")]
    [InlineData("K")]
    [InlineData("1,000")]
    [InlineData("0x10")]
    [InlineData("1E")]
    [InlineData("1KB")]
    [InlineData("")]
    public void A_malformed_size_is_an_error_naming_the_option_and_the_form(string given)
    {
        var (value, errors) = ParseSize(given);

        Assert.Null(value);
        Assert.Equal($"--min-size: '{given}' is not a size (a whole number of bytes with an optional K, M, G or T suffix, such as 4096 or 10M)", Assert.Single(errors));
    }

    [Theory]
    [InlineData("8388608T")]
    [InlineData("9007199254740992G")]
    [InlineData("8796093022208M")]
    [InlineData("9007199254740992K")]
    [InlineData("9223372036854775808")]
    public void A_size_past_the_largest_is_too_large_not_wrapped(string given)
    {
        var (value, errors) = ParseSize(given);

        Assert.Null(value);
        var error = Assert.Single(errors);
        Assert.True(
            error == $"--min-size: '{given}' is too large (at most 9223372036854775807 bytes, 8388607T)"
                || error.StartsWith($"--min-size: '{given}' is not a size", StringComparison.Ordinal), // past long itself: not a number
            error);
        Assert.Equal(given != "9223372036854775808", error.Contains("too large", StringComparison.Ordinal));
    }

    [Fact]
    public void The_largest_size_of_each_suffix_is_accepted()
    {
        Assert.Equal(long.MaxValue >> 10 << 10, ParseSize($"{long.MaxValue >> 10}K").Value);
        Assert.Equal(long.MaxValue >> 20 << 20, ParseSize($"{long.MaxValue >> 20}M").Value);
        Assert.Equal(long.MaxValue >> 30 << 30, ParseSize($"{long.MaxValue >> 30}G").Value);
        Assert.Equal(long.MaxValue >> 40 << 40, ParseSize($"{long.MaxValue >> 40}T").Value);
    }

    [Theory]
    [InlineData("1", 1)]
    [InlineData(" 8 ", 8)]
    [InlineData("1024", 1024)]
    public void A_thread_count_from_1_to_1024_is_taken(string given, int count)
    {
        var (value, errors) = ParseThreads(given);

        Assert.Empty(errors);
        Assert.Equal(count, value);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("1025")]
    [InlineData("-1")]
    [InlineData("+2")]
    [InlineData("2.5")]
    [InlineData("3000000000")]
    [InlineData("four")]
    public void A_thread_count_out_of_range_or_malformed_is_an_error_naming_the_bounds(string given)
    {
        var (value, errors) = ParseThreads(given);

        Assert.Null(value);
        Assert.Equal($"--threads: '{given}' is not a thread count (a whole number from 1 to 1024)", Assert.Single(errors));
    }

    [Fact]
    public void An_argument_not_an_option_is_named_by_the_argument()
    {
        var argument = new Argument<long?>("size") { CustomParser = NumberValues.ParseSize };
        var result = new RootCommand { argument }.Parse(["1.5K"]);

        Assert.Equal("size: '1.5K' is not a size (a whole number of bytes with an optional K, M, G or T suffix, such as 4096 or 10M)", Assert.Single(result.Errors).Message);
    }

    private static (long? Value, string[] Errors) ParseSize(string given)
    {
        var option = new Option<long?>("--min-size") { CustomParser = NumberValues.ParseSize };
        var result = new RootCommand { option }.Parse(["--min-size", given]);
        return (result.Errors.Count == 0 ? result.GetValue(option) : null, result.Errors.Select(e => e.Message).ToArray());
    }

    private static (int? Value, string[] Errors) ParseThreads(string given)
    {
        var option = new Option<int?>("--threads") { CustomParser = NumberValues.ParseThreads };
        var result = new RootCommand { option }.Parse(["--threads", given]);
        return (result.Errors.Count == 0 ? result.GetValue(option) : null, result.Errors.Select(e => e.Message).ToArray());
    }
}
