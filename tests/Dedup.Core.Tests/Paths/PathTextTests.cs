using System.Text;
using Dedup.Core.Paths;
using Xunit;

namespace Dedup.Core.Tests.Paths;

/// <summary>
/// <see cref="PathText"/>: the one escaping used by every human-readable output. Each rule, the unchanged fast path,
/// and injectivity (two different names never print the same).
/// </summary>
public sealed class PathTextTests
{
    [Fact]
    public void The_C1_range_is_escaped_to_its_last_character_and_not_beyond()
    {
        Assert.Equal("\\u{0080}", PathText.Escape("\u0080"));
        Assert.Equal("\\u{009F}", PathText.Escape("\u009F"));
        Assert.Equal("\u00A0x", PathText.Escape("\u00A0x")); // just past the C1 range: a no-break space, shown as is
        Assert.Equal("\u007E", PathText.Escape("\u007E")); // '~', the last printable ASCII character
    }

    [Fact]
    public void Messages_keep_their_backslashes_and_lose_their_control_characters()
    {
        Assert.Equal("C:\\dir\\n is \\n", PathText.EscapeMessage("C:\\dir\\n is \n"));
        Assert.Equal("plain", PathText.EscapeMessage("plain"));
        Assert.Equal("\\e[31m", PathText.EscapeMessage("\u001b[31m"));
        Assert.Throws<ArgumentNullException>(() => PathText.EscapeMessage(null!));
    }

    [Theory]
    [InlineData("/plain/name.txt", "/plain/name.txt")]
    [InlineData("/ü/日本/😀 emoji/e\u0301", "/ü/日本/😀 emoji/e\u0301")]
    [InlineData("back\\slash", @"back\\slash")]
    [InlineData("new\nline", @"new\nline")]
    [InlineData("car\rriage", @"car\rriage")]
    [InlineData("tab\there", @"tab\there")]
    [InlineData("\u001b[31mred", @"\e[31mred")]
    [InlineData("nul\0bell\u0007del\u007f", @"nul\x00bell\x07del\x7F")]
    [InlineData("c1\u0085\u009b", @"c1\u{0085}\u{009B}")]
    [InlineData("rlo\u202Egnp.exe", @"rlo\u{202E}gnp.exe")]
    [InlineData("\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u200E\u200F", @"\u{202A}\u{202B}\u{202C}\u{202D}\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}")]
    [InlineData("zero\u200Bwidth\uFEFFbom\u00ADshy", @"zero\u{200B}width\u{FEFF}bom\u{00AD}shy")]
    [InlineData("line\u2028para\u2029", @"line\u{2028}para\u{2029}")]
    [InlineData("tag\U000E0041", @"tag\u{E0041}")]
    public void Escape_applies_each_rule(string name, string expected)
    {
        Assert.Equal(expected, PathText.Escape(name));
    }

    [Fact]
    public void Lone_surrogates_are_escaped_and_pairs_kept()
    {
        // Not [InlineData]: test-case serialization replaces lone surrogates.
        Assert.Equal(@"lone\u{D800}high", PathText.Escape("lone\uD800high"));
        Assert.Equal(@"lone\u{DC00}low", PathText.Escape("lone\uDC00low"));
        Assert.Equal(@"end\u{D83D}", PathText.Escape("end\uD83D"));
        Assert.Equal(@"\u{DE00}\u{D83D}", PathText.Escape("\uDE00\uD83D"));
        Assert.Equal("pair\uD83D\uDE00", PathText.Escape("pair\uD83D\uDE00"));
    }

    [Fact]
    public void A_name_that_needs_nothing_is_returned_as_it_is()
    {
        var name = "/data/photos/2024/IMG_0001 (copy).jpg";
        Assert.Same(name, PathText.Escape(name));
        Assert.Same(name, PathText.EscapeMessage(name));
    }

    [Fact]
    public void Names_that_differ_only_by_a_newline_and_a_literal_backslash_n_print_differently()
    {
        Assert.NotEqual(PathText.Escape("a\nb"), PathText.Escape("a\\nb"));
        Assert.NotEqual(PathText.Escape("\u001b"), PathText.Escape("\\e"));
        Assert.NotEqual(PathText.Escape("\u202E"), PathText.Escape("\\u{202E}"));
        Assert.NotEqual(PathText.Escape("\u0001"), PathText.Escape("\\x01"));
    }

    [Fact]
    public void Escape_is_injective_and_printable_over_every_short_string_of_tricky_characters()
    {
        // Every string of up to three characters from an alphabet holding each escape's own letters: a collision
        // between two of them would be a name that prints like another.
        char[] alphabet = ['\\', 'n', 'x', '0', '1', 'u', '{', '}', 'e', '\n', '\u001b', '\u0001', '\u202E', '\uD800', '\uDC00', 'a'];
        var seen = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var name in Strings(alphabet, 3))
        {
            var shown = PathText.Escape(name);
            Assert.True(seen.TryAdd(shown, name), $"'{Visible(name)}' and '{Visible(seen.GetValueOrDefault(shown) ?? string.Empty)}' both print as {shown}");
            Assert.DoesNotContain(shown, c => c < ' ' || c == '\u007f' || c == '\u202E');
            Assert.True(shown.EnumerateRunes().All(r => r != Rune.ReplacementChar) || name.Contains('\uFFFD', StringComparison.Ordinal), $"lone surrogate left in {shown}");
        }
    }

    [Fact]
    public void EscapeMessage_escapes_controls_but_keeps_backslashes_of_paths_already_escaped()
    {
        var message = $"kept file {PathText.Escape("/a/new\nline")} changed since the scan";

        Assert.Equal(@"kept file /a/new\nline changed since the scan", PathText.EscapeMessage(message));
        Assert.Equal(@"raw /a/x\ny\e[0m\u{202E}", PathText.EscapeMessage("raw /a/x\ny\u001b[0m\u202E"));
        Assert.Equal(@"C:\dir", PathText.EscapeMessage(@"C:\dir"));
    }

    [Fact]
    public void ToDisplayString_escapes_the_whole_path_and_ToString_stays_exact()
    {
        var path = AbsolutePath.Parse("/tmp/evil\n  /real/\u001b[31mpath");

        Assert.Equal("/tmp/evil\n  /real/\u001b[31mpath", path.ToString());
        Assert.Equal(@"/tmp/evil\n  /real/\e[31mpath", path.ToDisplayString());
        Assert.Equal("/tmp/plain", AbsolutePath.Parse("/tmp/plain").ToDisplayString());
    }

    private static IEnumerable<string> Strings(char[] alphabet, int maxLength)
    {
        IEnumerable<string> level = [string.Empty];
        yield return string.Empty;
        for (var length = 1; length <= maxLength; length++)
        {
            level = level.SelectMany(prefix => alphabet.Select(c => prefix + c)).ToList();
            foreach (var s in level)
            {
                yield return s;
            }
        }
    }

    private static string Visible(string name) => string.Join(' ', name.Select(c => ((int)c).ToString("X4", System.Globalization.CultureInfo.InvariantCulture)));
}
