using System.Globalization;
using System.Text;
using System.Text.Json;
using Dedup.Cli.Output;
using Dedup.Core.Catalog;
using Dedup.Core.Paths;
using Dedup.Core.PostgreSql;

namespace Dedup.Cli.Catalog;

/// <summary>
/// Writes <c>dedup catalog machines</c> and <c>groups</c> as text, JSON or CSV. Paths are the other machines' bytes:
/// text escapes them as find's text report does, JSON writes <c>path</c> (lossy) and <c>pathBytes</c> (base64) for a
/// name that is not UTF-8, CSV writes the exact bytes.
/// </summary>
internal static class FleetWriters
{
    public static void WriteMachines(Stream stream, string format, IReadOnlyList<FleetMachine> machines)
    {
        switch (format)
        {
            case "json":
                using (var json = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true }))
                {
                    json.WriteStartObject();
                    json.WriteStartArray("machines");
                    foreach (var machine in machines)
                    {
                        json.WriteStartObject();
                        json.WriteString("name", machine.Name);
                        json.WriteString("scannedAt", machine.ScannedAt.ToUniversalTime());
                        json.WriteNumber("files", machine.Files);
                        json.WriteNumber("pendingDigests", machine.PendingDigests);
                        json.WriteEndObject();
                    }

                    json.WriteEndArray();
                    json.WriteEndObject();
                }

                stream.WriteByte((byte)'\n');
                break;
            case "csv":
                using (var csv = new StreamWriter(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: true))
                {
                    csv.WriteLine("name,scanned_at,files,pending_digests");
                    foreach (var machine in machines)
                    {
                        csv.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{CsvField(machine.Name)},{machine.ScannedAt.UtcDateTime:yyyy-MM-ddTHH:mm:ssZ},{machine.Files},{machine.PendingDigests}"));
                    }
                }

                break;
            default:
                using (var text = new StreamWriter(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: true))
                {
                    var names = machines.Select(machine => PathText.Escape(machine.Name)).ToList();
                    int width = Math.Max("MACHINE".Length, names.Count == 0 ? 0 : names.Max(name => name.Length));
                    text.WriteLine($"{"MACHINE".PadRight(width)}  {"LAST SCAN (UTC)",-19}  {"FILES",12}  {"PENDING DIGESTS",15}");
                    for (var i = 0; i < machines.Count; i++)
                    {
                        text.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{names[i].PadRight(width)}  {machines[i].ScannedAt.UtcDateTime:yyyy-MM-dd HH:mm:ss}  {machines[i].Files,12:N0}  {machines[i].PendingDigests,15:N0}"));
                    }
                }

                break;
        }
    }

    /// <summary>Writes each group as it arrives, so a listing of the whole fleet is never held.</summary>
    public static async Task WriteGroupsAsync(Stream stream, string format, IAsyncEnumerable<FleetGroup> groups)
    {
        switch (format)
        {
            case "json":
                await using (var json = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true }))
                {
                    json.WriteStartObject();
                    json.WriteStartArray("groups");
                    await foreach (var group in groups.ConfigureAwait(false))
                    {
                        WriteJson(json, group);
                        await json.FlushAsync().ConfigureAwait(false);
                    }

                    json.WriteEndArray();
                    json.WriteEndObject();
                }

                stream.WriteByte((byte)'\n');
                break;
            case "csv":
                await using (var csv = new StreamWriter(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: true))
                {
                    await csv.WriteLineAsync("group,size,sha256,wasted,machine,path,hardlink_of").ConfigureAwait(false);
                    var number = 0;
                    await foreach (var group in groups.ConfigureAwait(false))
                    {
                        number++;
                        foreach (var (first, links) in Copies(group))
                        {
                            WriteCsvRow(csv, stream, number, group, first, null);
                            foreach (var link in links)
                            {
                                WriteCsvRow(csv, stream, number, group, link, first);
                            }
                        }
                    }
                }

                break;
            default:
                await using (var text = new StreamWriter(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: true))
                {
                    await foreach (var group in groups.ConfigureAwait(false))
                    {
                        WriteText(text, group);
                    }
                }

                break;
        }
    }

    private static void WriteText(StreamWriter text, FleetGroup group)
    {
        var copies = Copies(group);
        var machines = group.Files.Select(file => file.Machine).Distinct(StringComparer.Ordinal).Count();
        text.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"{copies.Count} files on {machines} machines, {TextReportWriter.Format(group.Length)} each ({group.Length} bytes), {TextReportWriter.Format(group.WastedBytes)} wasted [SHA-256 {Convert.ToHexStringLower(group.Sha256.Span)}]"));
        foreach (var (first, links) in copies)
        {
            text.Write("  ");
            text.Write(PathText.Escape(first.Machine));
            text.Write(": ");
            text.WriteLine(Display(first));
            foreach (var link in links)
            {
                text.Write("    = ");
                text.WriteLine(Display(link));
            }
        }

        text.WriteLine();
    }

    private static void WriteJson(Utf8JsonWriter json, FleetGroup group)
    {
        json.WriteStartObject();
        json.WriteNumber("size", group.Length);
        json.WriteString("sha256", Convert.ToHexStringLower(group.Sha256.Span));
        json.WriteNumber("wasted", group.WastedBytes);
        json.WriteStartArray("files");
        foreach (var (first, links) in Copies(group))
        {
            json.WriteStartObject();
            json.WriteString("machine", first.Machine);
            JsonPaths.WritePath(json, "path", KernelNames.GetString(first.Path.Span));
            json.WriteNumber("device", first.Stamp.Identity.Device);
            json.WriteNumber("inode", first.Stamp.Identity.FileId);
            if (links.Count > 0)
            {
                json.WriteStartArray("links");
                foreach (var link in links)
                {
                    json.WriteStringValue(KernelNames.ToLossyString(KernelNames.GetString(link.Path.Span)));
                }

                json.WriteEndArray();
            }

            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static void WriteCsvRow(StreamWriter csv, Stream stream, int number, FleetGroup group, CatalogMatch file, CatalogMatch? linkOf)
    {
        csv.Write(string.Create(CultureInfo.InvariantCulture, $"{number},{group.Length},{Convert.ToHexStringLower(group.Sha256.Span)},{group.WastedBytes},{CsvField(file.Machine)},"));
        WriteCsvPath(csv, stream, file.Path.Span);
        csv.Write(',');
        if (linkOf is not null)
        {
            WriteCsvPath(csv, stream, linkOf.Path.Span);
        }

        csv.WriteLine();
    }

    /// <summary>The path's exact bytes, quoted when it holds a comma, quote or line break (RFC 4180), as find's CSV.</summary>
    private static void WriteCsvPath(StreamWriter csv, Stream stream, ReadOnlySpan<byte> path)
    {
        csv.Flush();
        if (path.IndexOfAny((byte)',', (byte)'"', (byte)'\r') < 0 && !path.Contains((byte)'\n'))
        {
            stream.Write(path);
            return;
        }

        stream.WriteByte((byte)'"');
        foreach (var b in path)
        {
            if (b == (byte)'"')
            {
                stream.WriteByte((byte)'"');
            }

            stream.WriteByte(b);
        }

        stream.WriteByte((byte)'"');
    }

    private static string CsvField(string value) =>
        value.AsSpan().IndexOfAny(",\"\r\n") < 0 ? value : "\"" + value.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";

    private static string Display(CatalogMatch file) => PathText.Escape(KernelNames.GetString(file.Path.Span));

    /// <summary>Each file (machine and identity) once, its other names (hard links) beside it, in the group's order.</summary>
    private static List<(CatalogMatch First, List<CatalogMatch> Links)> Copies(FleetGroup group)
    {
        var copies = new List<(CatalogMatch First, List<CatalogMatch> Links)>();
        var index = new Dictionary<(string, Dedup.Core.Enumeration.FileIdentity), int>();
        foreach (var file in group.Files)
        {
            if (index.TryGetValue((file.Machine, file.Stamp.Identity), out var at))
            {
                copies[at].Links.Add(file);
            }
            else
            {
                index.Add((file.Machine, file.Stamp.Identity), copies.Count);
                copies.Add((file, []));
            }
        }

        return copies;
    }
}
