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
        json.WriteString(name, Lossy(path));
        if (KernelNames.HasEscapedBytes(path) && KernelNames.TryGetBytes(path, out var bytes))
        {
            json.WriteBase64String(name + "Bytes", bytes);
        }
    }

    /// <summary>The path with each escaped byte (and any other lone surrogate) shown as U+FFFD: what a JSON string can hold.</summary>
    private static string Lossy(string path)
    {
        char[]? chars = null;
        for (var i = 0; i < path.Length; i++)
        {
            var c = path[i];
            if (char.IsHighSurrogate(c) && i + 1 < path.Length && char.IsLowSurrogate(path[i + 1]))
            {
                i++;
            }
            else if (char.IsSurrogate(c))
            {
                chars ??= path.ToCharArray();
                chars[i] = '\uFFFD';
            }
        }

        return chars is null ? path : new string(chars);
    }
}
