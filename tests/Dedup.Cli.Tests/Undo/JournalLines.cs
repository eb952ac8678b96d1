using System.Text.Json;

namespace Dedup.Cli.Tests.Undo;

/// <summary>The lines of an action journal (docs/journal.md), read as the format describes them, for assertions.</summary>
internal static class JournalLines
{
    /// <summary>Every complete line, parsed (a line cut short is skipped).</summary>
    public static List<JsonElement> Read(string journal)
    {
        var lines = new List<JsonElement>();
        foreach (var line in File.ReadAllLines(journal).Where(l => l.Length > 0))
        {
            try
            {
                using var document = JsonDocument.Parse(line);
                lines.Add(document.RootElement.Clone());
            }
            catch (JsonException)
            {
            }
        }

        return lines;
    }

    public static List<JsonElement> Begun(string journal) => Read(journal).Where(l => l.GetProperty("status").GetString() == "begun").ToList();

    /// <summary>The exact bytes of a line's path (<c>pathBytes</c> when there, else the UTF-8 of <c>path</c>).</summary>
    public static byte[] PathBytes(JsonElement line) =>
        line.TryGetProperty("pathBytes", out var bytes) ? bytes.GetBytesFromBase64() : RawFs.Bytes(line.GetProperty("path").GetString()!);

    /// <summary>The begun lines' paths, shown as <see cref="TreeManifest"/> keys them (relative to <paramref name="world"/>'s base).</summary>
    public static List<string> BegunNames(UndoWorld world) =>
        Begun(world.Journal).Select(l => RawFs.Show(PathBytes(l).AsSpan(RawFs.Bytes(world.Base).Length + 1))).ToList();
}
