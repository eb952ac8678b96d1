using System.Globalization;
using System.Text.Json;
using Dedup.Core;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;

namespace Dedup.Cli.Acting;

/// <summary>
/// Reads the <c>dedup find --format json</c> contract (docs/usage.md) for <c>--from-report</c> and rebuilds each group
/// from the files as they are now: a name is kept only while it leads, from its report root and through no symbolic
/// link, to the very file the report describes. Anything malformed is a <see cref="InvalidReportException"/> naming
/// the first bad element, never a crash.
/// </summary>
internal static class ReportReader
{
    public static async Task<(List<DuplicateGroup> Groups, int LeftOut)> ReadAsync(FileInfo file, TextWriter problems, CancellationToken cancellationToken)
    {
        JsonDocument json;
        try
        {
            var stream = file.OpenRead();
            await using (stream.ConfigureAwait(false))
            {
                json = await JsonDocument.ParseAsync(stream, default, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (JsonException ex)
        {
            throw new InvalidReportException($"report {PathText.Escape(file.FullName)} is not valid JSON: {ex.Message}");
        }

        using (json)
        {
            var root = json.RootElement;
            if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty("groups", out var groupsElement) || groupsElement.ValueKind != JsonValueKind.Array)
            {
                throw new InvalidReportException($"report {PathText.Escape(file.FullName)} is not a 'dedup find --format json' report (no \"groups\" array)");
            }

            if (!root.TryGetProperty("roots", out var rootsElement) || rootsElement.ValueKind != JsonValueKind.Array)
            {
                throw new InvalidReportException($"report {PathText.Escape(file.FullName)} records no \"roots\" and file identities (written by an older dedup?); run 'dedup find --format json' again");
            }

            var roots = new List<ScanRoot>();
            var index = 0;
            foreach (var element in rootsElement.EnumerateArray())
            {
                var where = $"roots[{index++}]";
                roots.Add(new ScanRoot(ReadPath(element, "path", where), new FileIdentity(ReadUInt64(element, "device", where), ReadUInt64(element, "inode", where))));
            }

            var groups = new List<DuplicateGroup>();
            var leftOut = 0;
            index = 0;
            foreach (var element in groupsElement.EnumerateArray())
            {
                var where = $"groups[{index++}]";
                RequireObject(element, where);
                var files = RequireArray(element, "files", where);

                // A media-payload group's files differ byte for byte: the planner refuses such groups, so say so here.
                if (element.TryGetProperty("match", out var match) && match.ValueEquals("mediaPayload"u8))
                {
                    leftOut += files.GetArrayLength();
                    await problems.WriteLineAsync($"dedup: left out a media-payload group ({files.GetArrayLength()} files): their bytes differ (tags or metadata), so neither replaces the other").ConfigureAwait(false);
                    continue;
                }

                // A group across machines (dedup find --catalog) names files of other machines: not this machine's to act on.
                // Its local files are also in their own byte-verified group of the report.
                if (element.TryGetProperty("digest", out _))
                {
                    leftOut += files.GetArrayLength();
                    await problems.WriteLineAsync($"dedup: left out a group across machines ({files.GetArrayLength()} files): files of other machines are not acted on").ConfigureAwait(false);
                    continue;
                }

                var size = ReadInt64(element, "size", where);
                var names = new List<ReportedFile>();
                var fileIndex = 0;
                foreach (var entry in files.EnumerateArray())
                {
                    var at = $"{where}.files[{fileIndex++}]";
                    var path = ReadPath(entry, "path", at);
                    var identity = new FileIdentity(ReadUInt64(entry, "device", at), ReadUInt64(entry, "inode", at));
                    var mtime = ReadTime(entry, "mtime", at, required: true);
                    var ctime = ReadTime(entry, "ctime", at, required: false);
                    names.Add(new ReportedFile(path, identity, size, mtime, ctime));
                    if (entry.TryGetProperty("links", out var links))
                    {
                        if (links.ValueKind != JsonValueKind.Array)
                        {
                            throw new InvalidReportException($"{at}.links is not an array");
                        }

                        JsonElement[]? linksBytes = null;
                        if (entry.TryGetProperty("linksBytes", out var bytesElement))
                        {
                            linksBytes = bytesElement.ValueKind == JsonValueKind.Array && bytesElement.GetArrayLength() == links.GetArrayLength()
                                ? bytesElement.EnumerateArray().ToArray()
                                : throw new InvalidReportException($"{at}.linksBytes is not an array as long as {at}.links");
                        }

                        var linkIndex = 0;
                        foreach (var link in links.EnumerateArray())
                        {
                            var bytes = linksBytes?[linkIndex] is { ValueKind: not JsonValueKind.Null } b ? b : (JsonElement?)null;
                            var linkWhere = $"{at}.links[{linkIndex++}]";
                            names.Add(new ReportedFile(ParsePath(link, bytes, linkWhere), identity, size, mtime, ctime));
                        }
                    }
                }

                var group = ReportedDuplicates.FromReport(roots, size, names, out var left);
                leftOut += left.Count;
                foreach (var problem in left)
                {
                    await problems.WriteLineAsync($"dedup: left out {PathText.EscapeMessage(problem)}").ConfigureAwait(false);
                }

                if (group is not null)
                {
                    groups.Add(group);
                }
            }

            return (groups, leftOut);
        }
    }

    private static void RequireObject(JsonElement element, string where)
    {
        if (element.ValueKind != JsonValueKind.Object)
        {
            throw new InvalidReportException($"{where} is not an object");
        }
    }

    private static JsonElement RequireArray(JsonElement element, string name, string where)
    {
        var value = Require(element, name, where);
        return value.ValueKind == JsonValueKind.Array ? value : throw new InvalidReportException($"{where}.{name} is not an array");
    }

    private static JsonElement Require(JsonElement element, string name, string where)
    {
        RequireObject(element, where);
        return element.TryGetProperty(name, out var value) ? value : throw new InvalidReportException($"{where} has no \"{name}\"");
    }

    /// <summary>The path at <paramref name="name"/>, or its exact bytes from <c>pathBytes</c> when the report carries them.</summary>
    private static AbsolutePath ReadPath(JsonElement element, string name, string where) =>
        ParsePath(Require(element, name, where), element.TryGetProperty("pathBytes", out var bytes) ? bytes : null, $"{where}.{name}");

    /// <summary>
    /// A path from its JSON string or, when <paramref name="bytes"/> is given, from those exact bytes (base64; a Linux
    /// name that is not valid UTF-8, see <see cref="KernelNames"/>); the string must then be their lossy form.
    /// </summary>
    private static AbsolutePath ParsePath(JsonElement value, JsonElement? bytes, string where)
    {
        if (bytes is { } exact)
        {
            byte[] decoded;
            try
            {
                decoded = exact.ValueKind == JsonValueKind.String ? exact.GetBytesFromBase64() : throw new FormatException();
            }
            catch (FormatException)
            {
                throw new InvalidReportException($"{where}: its bytes are not base64");
            }

            if (decoded.AsSpan().IndexOf((byte)0) >= 0)
            {
                throw new InvalidReportException($"{where}: its bytes hold a NUL");
            }

            var text = KernelNames.GetString(decoded);
            if (value.ValueKind != JsonValueKind.String || !string.Equals(value.GetString(), Output.JsonReportWriter.Lossy(text), StringComparison.Ordinal))
            {
                throw new InvalidReportException($"{where} does not match its bytes");
            }

            return ParsePath(text, where);
        }

        string? plain;
        try
        {
            plain = value.ValueKind == JsonValueKind.String ? value.GetString() : null;
        }
        catch (InvalidOperationException)
        {
            plain = null; // a lone surrogate escaped in the JSON text: not a string .NET can read
        }

        return plain is not null ? ParsePath(plain, where) : throw new InvalidReportException($"{where} is not an absolute path");
    }

    private static AbsolutePath ParsePath(string text, string where)
    {
        if (text.Length == 0 || !Path.IsPathFullyQualified(text))
        {
            throw new InvalidReportException($"{where} is not an absolute path");
        }

        try
        {
            var path = AbsolutePath.Parse(text);

            // A report is a list of exact names: "." or ".." components, doubled or trailing separators are not ours.
            return string.Equals(path.ToString(), text, StringComparison.Ordinal) ? path : throw new InvalidReportException($"{where} is not a normalized path");
        }
        catch (ArgumentException ex)
        {
            throw new InvalidReportException($"{where} is not a valid path: {ex.Message}");
        }
    }

    private static long ReadInt64(JsonElement element, string name, string where)
    {
        var value = Require(element, name, where);
        return value.ValueKind == JsonValueKind.Number && value.TryGetInt64(out var number) && number >= 0
            ? number
            : throw new InvalidReportException($"{where}.{name} is not a non-negative integer");
    }

    private static ulong ReadUInt64(JsonElement element, string name, string where)
    {
        var value = Require(element, name, where);
        return value.ValueKind == JsonValueKind.Number && value.TryGetUInt64(out var number)
            ? number
            : throw new InvalidReportException($"{where}.{name} is not a non-negative integer");
    }

    private static DateTime ReadTime(JsonElement element, string name, string where, bool required)
    {
        if (!element.TryGetProperty(name, out var value))
        {
            return required ? throw new InvalidReportException($"{where} has no \"{name}\"") : DateTime.MinValue;
        }

        return value.ValueKind == JsonValueKind.String
            && DateTime.TryParseExact(value.GetString(), "O", CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out var time)
            && time.Kind == DateTimeKind.Utc
            ? time
            : throw new InvalidReportException($"{where}.{name} is not a UTC time in round-trip format (such as 2026-01-31T12:00:00.1234567Z)");
    }
}

/// <summary>A <c>--from-report</c> file that is not a valid report: a usage error with one line saying what is wrong.</summary>
internal sealed class InvalidReportException(string message) : Exception(message);
