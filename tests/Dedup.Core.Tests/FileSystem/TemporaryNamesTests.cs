using System.Text;
using Dedup.Core.FileSystem;
using Xunit;

namespace Dedup.Core.Tests.FileSystem;

/// <summary>The temporary names replacements are made under: what is one, as a string and as the kernel's bytes.</summary>
public sealed class TemporaryNamesTests
{
    private static readonly string Hex32 = new string('a', 16) + "0123456789abcdef";

    [Fact]
    public void A_temporary_name_is_the_prefix_and_exactly_32_lowercase_hexadecimal_digits()
    {
        string[] good = [".dedup-tmp-" + Hex32, ".dedup-tmp-" + new string('0', 32), ".dedup-tmp-" + new string('9', 32), ".dedup-tmp-" + new string('f', 32), TemporaryNames.NewName()];
        string[] bad =
        [
            ".dedup-tmp-" + Hex32[..31],
            ".dedup-tmp-" + Hex32 + "0",
            ".dedup-tmp-" + Hex32 + "\n",
            ".dedup-tmp-" + Hex32[..31] + "A",
            ".dedup-tmp-" + Hex32[..31] + "g",
            ".dedup-tmp-" + Hex32[..31] + "`",
            ".dedup-tmp-" + Hex32[..31] + ":",
            ".dedup-tmp-" + Hex32[..31] + "/",
            "x.dedup-tmp-" + Hex32[..31],
            ".dedup-tmq-" + Hex32,
            string.Empty,
        ];
        foreach (var name in good)
        {
            Assert.True(TemporaryNames.IsTemporaryName(name), name);
            Assert.True(TemporaryNames.IsTemporaryName(Encoding.UTF8.GetBytes(name)), name);
        }

        foreach (var name in bad)
        {
            Assert.False(TemporaryNames.IsTemporaryName(name), name);
            Assert.False(TemporaryNames.IsTemporaryName(Encoding.UTF8.GetBytes(name)), name);
        }
    }
}
