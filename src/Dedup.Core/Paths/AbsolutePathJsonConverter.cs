using System.Text.Json;
using System.Text.Json.Serialization;

namespace Dedup.Core.Paths;

/// <summary>
/// <see cref="AbsolutePath"/> in JSON (System.Text.Json, reflection or source-generated): the path as one string, not its
/// nodes (whose <see cref="AbsolutePath.Parent"/> and <see cref="AbsolutePath.Root"/> would make a cycle). A Linux name
/// that is not valid UTF-8 (escaped bytes, see <see cref="KernelNames"/>) cannot be a JSON string: such a path is the
/// object <c>{"path":"…","pathBytes":"…"}</c>, the lossy string (each escaped byte shown as U+FFFD) for people and
/// the exact bytes in base64, the same two properties the report format uses.
/// </summary>
internal sealed class AbsolutePathJsonConverter : JsonConverter<AbsolutePath>
{
    public override AbsolutePath Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        if (reader.TokenType == JsonTokenType.String)
        {
            return Parse(reader.GetString()!);
        }

        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw new JsonException("A path is a JSON string, or an object with \"path\" and \"pathBytes\".");
        }

        string? lossy = null;
        byte[]? bytes = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var isPath = reader.ValueTextEquals("path"u8);
            var isBytes = reader.ValueTextEquals("pathBytes"u8);
            reader.Read();
            if (isPath && reader.TokenType == JsonTokenType.String)
            {
                lossy = reader.GetString();
            }
            else if (isBytes && reader.TokenType == JsonTokenType.String)
            {
                bytes = reader.GetBytesFromBase64();
            }
            else
            {
                throw new JsonException("A path object holds only the strings \"path\" and \"pathBytes\".");
            }
        }

        if (lossy is null || bytes is null || bytes.AsSpan().IndexOf((byte)0) >= 0)
        {
            throw new JsonException("A path object needs \"path\" and \"pathBytes\" (base64, no NUL).");
        }

        var text = KernelNames.GetString(bytes);
        return string.Equals(Lossy(text), lossy, StringComparison.Ordinal)
            ? Parse(text)
            : throw new JsonException("A path's \"path\" does not match its \"pathBytes\".");
    }

    public override void Write(Utf8JsonWriter writer, AbsolutePath value, JsonSerializerOptions options)
    {
        var text = value.ToString();
        if (KernelNames.HasEscapedBytes(text) && KernelNames.TryGetBytes(text, out var bytes))
        {
            writer.WriteStartObject();
            writer.WriteString("path"u8, Lossy(text));
            writer.WriteBase64String("pathBytes"u8, bytes);
            writer.WriteEndObject();
        }
        else
        {
            writer.WriteStringValue(text);
        }
    }

    internal static string Lossy(string path) => KernelNames.ToLossyString(path);

    private static AbsolutePath Parse(string text)
    {
        try
        {
            var path = AbsolutePath.Parse(text);
            return string.Equals(path.ToString(), text, StringComparison.Ordinal)
                ? path
                : throw new JsonException($"'{PathText.Escape(text)}' is not an absolute, normalized path.");
        }
        catch (ArgumentException ex)
        {
            throw new JsonException(ex.Message, ex);
        }
    }
}
