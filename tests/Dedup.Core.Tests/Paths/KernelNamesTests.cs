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
}
