using System.Text.Json;
using Dedup.Core.Paths;

namespace Dedup.Cli.Output;

/// <summary>
/// A path in the action log (<c>--log</c>), written the way the report format (Dedup.Core's JSON report writer) writes
/// one: the string a JSON string can hold (each escaped byte as U+FFFD) and, for a name that is not valid UTF-8,
/// <c><i>name</i>Bytes</c> beside it with the exact bytes in base64.
/// </summary>
internal static class JsonPaths
{
    public static void WritePath(Utf8JsonWriter json, string name, string path)
    {
        json.WriteString(name, KernelNames.ToLossyString(path));
        if (KernelNames.HasEscapedBytes(path) && KernelNames.TryGetBytes(path, out var bytes))
        {
            json.WriteBase64String(name + "Bytes", bytes);
        }
    }
}
