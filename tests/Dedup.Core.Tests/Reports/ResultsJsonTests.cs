using System.Text.Json;
using System.Text.Json.Serialization;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Xunit;

namespace Dedup.Core.Tests.Reports;

/// <summary>
/// Results serialize with System.Text.Json as they are (<c>JsonSerializer.Serialize(group)</c>), reflection or
/// source-generated: an <see cref="AbsolutePath"/> is its string, or the lossy string plus its exact bytes for a name
/// that is not valid UTF-8, and reads back as the same path.
/// </summary>
public sealed class ResultsJsonTests
{
    /// <summary>A Latin-1 "é" (0xE9), which is not UTF-8, in a folder and a file name.</summary>
    internal static readonly AbsolutePath NonUtf8 = AbsolutePath.Parse(KernelNames.GetString([.. "/data/caf"u8, 0xE9, .. "/r"u8, 0xE9, .. "sum"u8, 0xFF, .. ".txt"u8]));

    internal static DuplicateGroup SampleGroup()
    {
        var roots = new[] { new ScanRoot(AbsolutePath.Parse("/data"), new FileIdentity(0x0000_0008_0000_0001, 2)) };
        var first = new DuplicateFile(AbsolutePath.Parse("/data/a/one.txt"), [AbsolutePath.Parse("/data/a/one-link.txt"), NonUtf8.Parent!.Child("link\uDCFF")], new FileIdentity(0x0000_0008_0000_0001, 11), 5, 3, new DateTime(2026, 1, 31, 12, 0, 0, DateTimeKind.Utc).AddTicks(1234567))
        {
            LastChangeTimeUtc = new DateTime(2026, 2, 1, 8, 30, 0, DateTimeKind.Utc).AddTicks(7),
            Machine = "backup-01",
        };
        var second = new DuplicateFile(NonUtf8, [], new FileIdentity(0x0000_0008_0000_0001, 12), 5, 1, new DateTime(2025, 12, 24, 23, 59, 59, DateTimeKind.Utc));
        return new DuplicateGroup(5, [first, second], verifiedByBytes: false)
        {
            Sha256 = Enumerable.Range(0, 32).Select(i => (byte)(i * 7)).ToArray(),
            Roots = roots,
        };
    }

    [Fact]
    public void A_group_with_a_name_that_is_not_UTF8_serializes_and_reads_back_equal()
    {
        var group = SampleGroup();

        var json = JsonSerializer.Serialize(group);
        var back = JsonSerializer.Deserialize<DuplicateGroup>(json);

        Assert.Equal(group, back);
        Assert.Equal(NonUtf8.ToString(), back!.Files[1].Path.ToString());
    }

    [Fact]
    public void A_group_serializes_and_reads_back_equal_through_a_source_generated_context()
    {
        var group = SampleGroup();

        var json = JsonSerializer.Serialize(group, ResultsContext.Default.DuplicateGroup);
        var back = JsonSerializer.Deserialize(json, ResultsContext.Default.DuplicateGroup);

        Assert.Equal(group, back);
    }

    [Fact]
    public void A_UTF8_path_is_a_string_and_one_with_escaped_bytes_its_lossy_string_and_exact_bytes()
    {
        Assert.Equal("\"/data/a/one.txt\"", JsonSerializer.Serialize(AbsolutePath.Parse("/data/a/one.txt")));

        using var json = JsonDocument.Parse(JsonSerializer.Serialize(NonUtf8));
        Assert.Equal("/data/caf\uFFFD/r\uFFFDsum\uFFFD.txt", json.RootElement.GetProperty("path").GetString());
        Assert.Equal([.. "/data/caf"u8, 0xE9, .. "/r"u8, 0xE9, .. "sum"u8, 0xFF, .. ".txt"u8], json.RootElement.GetProperty("pathBytes").GetBytesFromBase64());
        Assert.Equal(NonUtf8, JsonSerializer.Deserialize<AbsolutePath>(json.RootElement.GetRawText()));
    }

    [Fact]
    public void A_name_with_a_surrogate_pair_beside_an_escaped_byte_keeps_the_pair_in_its_lossy_string()
    {
        var path = AbsolutePath.Parse("/data/\U0001F600\uDCFF.txt");

        using var json = JsonDocument.Parse(JsonSerializer.Serialize(path));

        Assert.Equal("/data/\U0001F600\uFFFD.txt", json.RootElement.GetProperty("path").GetString());
        Assert.Equal(path, JsonSerializer.Deserialize<AbsolutePath>(json.RootElement.GetRawText()));
    }

    [Theory]
    [InlineData("\"relative/name\"", "is not an absolute, normalized path")]
    [InlineData("\"/data/../etc\"", "is not an absolute, normalized path")]
    [InlineData("\"/data//a\"", "is not an absolute, normalized path")]
    [InlineData("42", "A path is a JSON string, or an object")]
    [InlineData("{\"path\":\"/data/x\"}", "needs \"path\" and \"pathBytes\"")]
    [InlineData("{\"path\":\"/data/other\\uFFFD\",\"pathBytes\":\"L2RhdGEveP8=\"}", "does not match its \"pathBytes\"")]
    [InlineData("{\"path\":\"/a\",\"pathBytes\":\"L2EAYg==\"}", "no NUL")]
    [InlineData("{\"path\":\"/data/x\",\"pathBytes\":\"L2RhdGEveA==\",\"other\":\"L2E=\"}", "holds only the strings")]
    [InlineData("{\"path\":\"\\uFFFD/a\",\"pathBytes\":\"AC9h\"}", "no NUL")]
    [InlineData("\"\"", "empty")]
    public void A_path_that_is_not_an_exact_absolute_path_is_refused(string json, string reason)
    {
        var error = Assert.Throws<JsonException>(() => JsonSerializer.Deserialize<AbsolutePath>(json));

        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_path_object_whose_string_matches_its_bytes_reads_back()
    {
        // "/data/x\xFF": the string is the bytes' lossy form.
        var path = JsonSerializer.Deserialize<AbsolutePath>("{\"path\":\"/data/x\\uFFFD\",\"pathBytes\":\"L2RhdGEveP8=\"}");

        Assert.Equal(KernelNames.GetString([.. "/data/x"u8, 0xFF]), path!.ToString());
    }
}

/// <summary>What an application compiled ahead of time would declare: the results' types, no reflection.</summary>
[JsonSerializable(typeof(DuplicateGroup))]
internal sealed partial class ResultsContext : JsonSerializerContext;
