using System.Text;
using Dedup.Core.Paths;
using Xunit;

namespace Dedup.Core.Tests.Paths;

/// <summary>The lossless name mapping: bytes that are not valid UTF-8 become U+DC80+byte and come back exactly.</summary>
public sealed class KernelNamesTests
{
    [Fact]
    public void Valid_utf8_decodes_as_plain_text_and_encodes_back()
    {
        foreach (var text in new[] { "a.bin", "é ü 日本 😀", "a\uFFFD.bin", string.Empty })
        {
            var bytes = Encoding.UTF8.GetBytes(text);
            Assert.Equal(text, KernelNames.GetString(bytes));
            Assert.False(KernelNames.HasEscapedBytes(text));
            Assert.True(KernelNames.TryGetBytes(text, out var back));
            Assert.Equal(bytes, back);
        }
    }

    [Fact]
    public void Invalid_bytes_become_lone_surrogates_and_round_trip()
    {
        byte[] bytes = [(byte)'a', 0xFF, (byte)'.', 0xC3, 0xED, 0xA0, 0x80, 0xF4, 0x90, 0x80, 0x80, 0xC0, 0xAF, 0xE2, 0x82];
        var text = KernelNames.GetString(bytes);

        Assert.Equal("a\uDCFF.\uDCC3\uDCED\uDCA0\uDC80\uDCF4\uDC90\uDC80\uDC80\uDCC0\uDCAF\uDCE2\uDC82", text);
        Assert.True(KernelNames.HasEscapedBytes(text));
        Assert.True(KernelNames.TryGetBytes(text, out var back));
        Assert.Equal(bytes, back);
    }

    [Fact]
    public void Every_byte_string_round_trips()
    {
        var random = new Random(17);
        for (var i = 0; i < 20000; i++)
        {
            var bytes = new byte[random.Next(0, 12)];
            random.NextBytes(bytes);
            for (var k = 0; k < bytes.Length; k++)
            {
                bytes[k] = bytes[k] == 0 ? (byte)1 : bytes[k];
            }

            Assert.True(KernelNames.TryGetBytes(KernelNames.GetString(bytes), out var back));
            Assert.Equal(bytes, back);
        }
    }

    [Fact]
    public void Text_no_name_decodes_to_is_refused()
    {
        // (Not [InlineData]: attribute strings are stored as UTF-8, which would turn these lone surrogates into U+FFFD.)
        string[] texts =
        [
            "a\0b", // NUL: would cut the name short
            "a\uD800b", // a lone high surrogate
            "a\uDC41b", // a lone low surrogate that is no escaped byte (0x41 is ASCII)
            "\uDCC3\uDCA9", // escaped bytes forming valid UTF-8 (é): they would name the file "é"
        ];
        foreach (var text in texts)
        {
            Assert.False(KernelNames.TryGetBytes(text, out var bytes));
            Assert.Null(bytes);
        }
    }

    [Fact]
    public void PathText_shows_an_escaped_byte_as_backslash_x()
    {
        Assert.Equal(@"/d/a\xFF.bin", PathText.Escape(KernelNames.GetString([.. "/d/a"u8, 0xFF, .. ".bin"u8])));
        Assert.Equal(@"a\xC3(", PathText.Escape("a\uDCC3("));
        Assert.Equal(@"\u{DC41}", PathText.Escape("\uDC41"));
        Assert.Equal("a\uFFFD.bin", PathText.Escape("a\uFFFD.bin"));
    }

    /// <summary>
    /// Each edge of UTF-8 validity, inside a name that also holds an invalid byte (so the byte-by-byte decoder runs):
    /// the expected string says which bytes form a character and which are escaped one by one.
    /// </summary>
    [Theory]
    [InlineData("C0 80 FF", "\\uDCC0\\uDC80\\uDCFF")] // overlong NUL
    [InlineData("C1 BF FF", "\\uDCC1\\uDCBF\\uDCFF")] // overlong, lowest lead bytes
    [InlineData("C2 80 FF", "\\u0080\\uDCFF")] // lowest two-byte character
    [InlineData("DF BF FF", "\\u07FF\\uDCFF")] // highest two-byte character
    [InlineData("E0 9F BF FF", "\\uDCE0\\uDC9F\\uDCBF\\uDCFF")] // overlong three-byte
    [InlineData("E0 A0 80 FF", "\\u0800\\uDCFF")] // lowest three-byte character
    [InlineData("ED 9F BF FF", "\\uD7FF\\uDCFF")] // just below the surrogates
    [InlineData("ED A0 80 FF", "\\uDCED\\uDCA0\\uDC80\\uDCFF")] // an encoded surrogate is not UTF-8
    [InlineData("EF BF BF FF", "\\uFFFF\\uDCFF")] // highest three-byte character
    [InlineData("F0 8F BF BF FF", "\\uDCF0\\uDC8F\\uDCBF\\uDCBF\\uDCFF")] // overlong four-byte
    [InlineData("F0 90 80 80 FF", "\\uD800\\uDC00\\uDCFF")] // U+10000
    [InlineData("F4 8F BF BF FF", "\\uDBFF\\uDFFF\\uDCFF")] // U+10FFFF
    [InlineData("F4 90 80 80 FF", "\\uDCF4\\uDC90\\uDC80\\uDC80\\uDCFF")] // beyond U+10FFFF
    [InlineData("F5 80 80 80", "\\uDCF5\\uDC80\\uDC80\\uDC80")] // no such lead byte
    [InlineData("FF E2 82", "\\uDCFF\\uDCE2\\uDC82")] // cut short at the end
    [InlineData("E2 C2 AC FF", "\\uDCE2\\u00AC\\uDCFF")] // a lead byte followed by another lead byte
    [InlineData("E2 82 C2 AC FF", "\\uDCE2\\uDC82\\u00AC\\uDCFF")] // the third byte not a continuation
    [InlineData("F0 90 80 C2 AC FF", "\\uDCF0\\uDC90\\uDC80\\u00AC\\uDCFF")] // the fourth byte not a continuation
    [InlineData("E2 82 AC FF", "\\u20AC\\uDCFF")] // the euro sign
    [InlineData("FF E2 82 AC", "\\uDCFF\\u20AC")] // a whole character ending the name
    public void Each_utf8_edge_decodes_and_encodes_back_exactly(string hex, string escapedExpected)
    {
        var bytes = Convert.FromHexString(hex.Replace(" ", string.Empty, StringComparison.Ordinal));
        var expected = System.Text.RegularExpressions.Regex.Unescape(escapedExpected);

        var text = KernelNames.GetString(bytes);

        Assert.Equal(expected, text);
        Assert.True(KernelNames.HasEscapedBytes(text));
        Assert.True(KernelNames.TryGetBytes(text, out var back));
        Assert.Equal(bytes, back);
        Assert.Equal([.. bytes, 0], KernelNames.ToNullTerminated(text));
    }

    [Fact]
    public void A_surrogate_pair_is_text_and_an_escaped_byte_after_it_is_still_seen()
    {
        Assert.False(KernelNames.HasEscapedBytes("a😀"));
        Assert.False(KernelNames.HasEscapedBytes("😀😀"));
        Assert.True(KernelNames.HasEscapedBytes("😀\uDCFF"));
        Assert.True(KernelNames.HasEscapedBytes("\uDCFF😀"));
        Assert.False(KernelNames.HasEscapedBytes("\U0001F080")); // a pair whose low half lies in U+DC80–U+DCFF
        Assert.False(KernelNames.HasEscapedBytes("\uD83D")); // a lone high surrogate is not an escaped byte
        Assert.Equal([0xE2, 0x82, 0xAC, 0xE2, 0x82, 0xAC, 0], KernelNames.ToNullTerminated("€€")); // three bytes a character
        Assert.Null(KernelNames.ToNullTerminated("a\uD83D")); // nor can it be encoded
        Assert.Null(KernelNames.ToNullTerminated("a\0b"));
        Assert.Throws<ArgumentNullException>(() => KernelNames.HasEscapedBytes(null!));
        Assert.Throws<ArgumentNullException>(() => KernelNames.TryGetBytes(null!, out _));
    }

    [Fact]
    public void The_lossy_string_shows_each_escaped_byte_and_lone_surrogate_as_a_replacement_character()
    {
        var name = KernelNames.GetString([(byte)'a', 0xFF, (byte)'b']);
        const string plain = "/photos/\U0001F600 café";

        Assert.Equal("a\uFFFDb", KernelNames.ToLossyString(name));
        Assert.Same(plain, KernelNames.ToLossyString(plain)); // a surrogate pair is a character, kept
        Assert.Equal("x\uFFFD", KernelNames.ToLossyString("x\uD83D")); // a high surrogate at the end
        Assert.Equal("\uFFFDy", KernelNames.ToLossyString("\uDE00y")); // a low surrogate alone
        Assert.Equal("\uFFFD\uFFFD", KernelNames.ToLossyString("\uDE00\uD83D"));
        Assert.Throws<ArgumentNullException>(() => KernelNames.ToLossyString(null!));
    }

    [Fact]
    public unsafe void A_name_no_bytes_give_is_refused_by_the_marshaller_with_every_character_beyond_printable_ascii_shown_as_a_code()
    {
        // A NUL ends the name early in the kernel, a lone high surrogate has no bytes: both refused, and the message
        // carries no control (the ESC would recolour a terminal) and no character a UTF-8 writer would change.
        var error = Assert.Throws<ArgumentException>(() => { _ = Interop.KernelNameMarshaller.ConvertToUnmanaged("a\0\u001b[31m\\\ud800é~"); });

        Assert.StartsWith(@"'a\u{0000}\u{001B}[31m\u{005C}\u{D800}\u{00E9}~' cannot be passed to the system", error.Message);
    }
}
