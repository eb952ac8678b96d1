using System.Text.Json;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Journal;

/// <summary>
/// A path (or link text) in the journal, written as the JSON report writes one: the string a JSON string can hold
/// (each escaped byte as U+FFFD) and, for one that is not valid UTF-8, <c><i>name</i>Bytes</c> beside it with the
/// exact bytes in base64.
/// </summary>
internal static class JournalPaths
{
    public static void Write(Utf8JsonWriter json, string name, string path)
    {
        json.WriteString(name, KernelNames.ToLossyString(path));
        if (KernelNames.HasEscapedBytes(path) && KernelNames.TryGetBytes(path, out var bytes))
        {
            json.WriteBase64String(name + "Bytes", bytes);
        }
    }
}
