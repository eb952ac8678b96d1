using System.Globalization;
using System.Text.Json;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Reports;

/// <summary>
/// Reads what <see cref="JsonReportWriter"/> writes (docs/usage.md, "JSON"). Anything malformed is a
/// <see cref="ReportFormatException"/> naming the first bad element, never a crash: the CLI's <c>--from-report</c>
/// shows these messages as they are.
/// </summary>
internal static class JsonReportReader
{
    public static async Task<DuplicateReport> ReadAsync(Stream stream, CancellationToken cancellationToken)
    {
        JsonDocument json;
        try
        {
            json = await JsonDocument.ParseAsync(stream, default, cancellationToken).ConfigureAwait(false);
        }
        catch (JsonException ex)
        {
            throw new ReportFormatException($"The report is not valid JSON: {ex.Message}", null, ex);
        }

        using (json)
        {
            return Read(json.RootElement);
        }
    }

    private static DuplicateReport Read(JsonElement root)
    {
        if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty("groups", out var groupsElement) || groupsElement.ValueKind != JsonValueKind.Array)
        {
            throw new ReportFormatException("The report is not a 'dedup find --format json' report (no \"groups\" array)", null, null);
        }

        if (!root.TryGetProperty("roots", out var rootsElement) || rootsElement.ValueKind != JsonValueKind.Array)
        {
            throw new ReportFormatException("The report records no \"roots\" and file identities (written by an older dedup?); run 'dedup find --format json' again", null, null);
        }

        var roots = new List<ScanRoot>();
        var index = 0;
        foreach (var element in rootsElement.EnumerateArray())
        {
            var where = $"roots[{index++}]";
            var scanRoot = new ScanRoot(ReadPath(element, "path", where), new FileIdentity(ReadUInt64(element, "device", where), ReadUInt64(element, "inode", where)));
            if (element.TryGetProperty("folderDevice", out _) || element.TryGetProperty("folderInode", out _))
            {
                scanRoot = new ScanRoot(scanRoot.Path, scanRoot.Identity) { FolderIdentity = new FileIdentity(ReadUInt64(element, "folderDevice", where), ReadUInt64(element, "folderInode", where)) };
            }

            roots.Add(scanRoot);
        }

        var groups = new List<DuplicateGroup>();
        index = 0;
        foreach (var element in groupsElement.EnumerateArray())
        {
            if (ReadGroup(element, $"groups[{index++}]", roots) is { } group)
            {
                groups.Add(group);
            }
        }

        var folderGroups = new List<DuplicateFolderGroup>();
        if (root.TryGetProperty("folderGroups", out var folderGroupsElement))
        {
            if (folderGroupsElement.ValueKind != JsonValueKind.Array)
            {
                throw Bad("folderGroups is not an array", "folderGroups");
            }

            index = 0;
            foreach (var element in folderGroupsElement.EnumerateArray())
            {
                folderGroups.Add(ReadFolderGroup(element, $"folderGroups[{index++}]", roots));
            }
        }

        return new DuplicateReport(roots, groups, folderGroups);
    }

    private static DuplicateFolderGroup ReadFolderGroup(JsonElement element, string where, IReadOnlyList<ScanRoot> roots)
    {
        var folders = new List<AbsolutePath>();
        var folderIndex = 0;
        foreach (var folder in RequireArray(element, "folders", where).EnumerateArray())
        {
            folders.Add(ReadPath(folder, "path", $"{where}.folders[{folderIndex++}]"));
        }

        var files = ReadInt64(element, "files", where);
        var bytes = ReadInt64(element, "bytes", where);
        var wasted = ReadInt64(element, "wastedBytes", where);
        var verified = ReadVerified(element, where);
        var differences = new List<FolderDifference>();
        if (element.TryGetProperty("differences", out _))
        {
            var differenceIndex = 0;
            foreach (var difference in RequireArray(element, "differences", where).EnumerateArray())
            {
                var at = $"{where}.differences[{differenceIndex++}]";
                var path = Require(difference, "path", at);
                var kind = Require(difference, "kind", at);
                differences.Add(new FolderDifference(
                    path.ValueKind == JsonValueKind.String ? path.GetString()! : throw Bad($"{at}.path is not a string", at),
                    kind.ValueKind != JsonValueKind.String ? throw Bad($"{at}.kind is not a string", at)
                        : kind.ValueEquals("onlyInFirst"u8) ? FolderDifferenceKind.OnlyInFirst
                        : kind.ValueEquals("onlyInSecond"u8) ? FolderDifferenceKind.OnlyInSecond
                        : kind.ValueEquals("changed"u8) ? FolderDifferenceKind.Changed
                        : kind.ValueEquals("unknown"u8) ? FolderDifferenceKind.Unknown
                        : throw Bad($"{at}.kind is not onlyInFirst, onlyInSecond, changed or unknown", at)));
            }
        }

        // What the scan computed from link counts is what it wrote; a partial overlap frees nothing.
        return new DuplicateFolderGroup(folders, files, bytes, verified, differences)
        {
            FreedBytes = differences.Count == 0 ? wasted : null,
            Roots = roots,
        };
    }

    private static bool ReadVerified(JsonElement element, string where) =>
        !element.TryGetProperty("verifiedByBytes", out var value)
        || (value.ValueKind is JsonValueKind.True or JsonValueKind.False
            ? value.GetBoolean()
            : throw Bad($"{where}.verifiedByBytes is not true or false", where));

    private static DuplicateGroup? ReadGroup(JsonElement element, string where, IReadOnlyList<ScanRoot> roots)
    {
        RequireObject(element, where);
        var filesElement = RequireArray(element, "files", where);
        var match = element.TryGetProperty("match", out var matchElement) && matchElement.ValueEquals("mediaPayload"u8)
            ? ContentMatch.MediaPayload
            : ContentMatch.WholeFile;
        var digest = element.TryGetProperty("digest", out var digestElement) ? ReadDigest(digestElement, $"{where}.digest") : null;
        var verified = ReadVerified(element, where);
        var size = ReadInt64(element, "size", where);
        var files = new List<DuplicateFile>();
        var fileIndex = 0;
        foreach (var entry in filesElement.EnumerateArray())
        {
            var at = $"{where}.files[{fileIndex++}]";
            var path = ReadPath(entry, "path", at);
            var identity = new FileIdentity(ReadUInt64(entry, "device", at), ReadUInt64(entry, "inode", at));
            var mtime = ReadTime(entry, "mtime", at, required: true);
            var ctime = ReadTime(entry, "ctime", at, required: false);
            var length = match == ContentMatch.MediaPayload ? ReadInt64(entry, "size", at) : size;
            string? machine = null;
            if (entry.TryGetProperty("machine", out var machineElement))
            {
                machine = machineElement.ValueKind == JsonValueKind.String ? machineElement.GetString() : throw Bad($"{at}.machine is not a string", at);
            }

            // In a group across machines a file is matched by digest only unless the report says otherwise (reports
            // written before the flag held this machine's compared files in a group of their own).
            var bySha256 = digest is not null;
            if (digest is not null && entry.TryGetProperty("sha256Only", out var shaOnly))
            {
                bySha256 = shaOnly.ValueKind is JsonValueKind.True or JsonValueKind.False ? shaOnly.GetBoolean() : throw Bad($"{at}.sha256Only is not true or false", at);
            }

            var links = ReadLinks(entry, at);
            files.Add(new DuplicateFile(path, links, identity, length, links.Count + 1, mtime) { LastChangeTimeUtc = ctime, Machine = machine, MatchedBySha256 = bySha256 });
        }

        // One file is no duplicate (a hand-edited report): left out, as acting on it would leave it out.
        if (files.Count < 2)
        {
            return null;
        }

        var group = new DuplicateGroup(size, files, verified, match)
        {
            MediaFormat = match == ContentMatch.MediaPayload ? ReadFormat(element, where) : null,
            Sha256 = digest ?? default(ReadOnlyMemory<byte>),
        };

        // A group across machines has the scan's roots when it holds files compared there (as the scan made it).
        return group with { Roots = group.LocalPart() is null ? [] : roots };
    }

    /// <summary>A media-payload group's <c>format</c>: absent in reports written before it was added; a name no format has is refused.</summary>
    private static MediaFormat? ReadFormat(JsonElement element, string where)
    {
        if (!element.TryGetProperty("format", out var value))
        {
            return null;
        }

        return (value.ValueKind == JsonValueKind.String ? MediaFormatNames.Parse(value.GetString()) : null)
            ?? throw Bad($"{where}.format is not a media format (mp3, flac, jpeg, png, wav, webp or mp4)", where);
    }

    private static List<AbsolutePath> ReadLinks(JsonElement entry, string at)
    {
        var paths = new List<AbsolutePath>();
        if (!entry.TryGetProperty("links", out var links))
        {
            return paths;
        }

        if (links.ValueKind != JsonValueKind.Array)
        {
            throw Bad($"{at}.links is not an array", at);
        }

        JsonElement[]? linksBytes = null;
        if (entry.TryGetProperty("linksBytes", out var bytesElement))
        {
            linksBytes = bytesElement.ValueKind == JsonValueKind.Array && bytesElement.GetArrayLength() == links.GetArrayLength()
                ? bytesElement.EnumerateArray().ToArray()
                : throw Bad($"{at}.linksBytes is not an array as long as {at}.links", at);
        }

        var linkIndex = 0;
        foreach (var link in links.EnumerateArray())
        {
            var bytes = linksBytes?[linkIndex] is { ValueKind: not JsonValueKind.Null } b ? b : (JsonElement?)null;
            paths.Add(ParsePath(link, bytes, $"{at}.links[{linkIndex++}]"));
        }

        return paths;
    }

    private static byte[] ReadDigest(JsonElement value, string where)
    {
        var text = value.ValueKind == JsonValueKind.String ? value.GetString() : null;
        if (text is null || text.Length != 64)
        {
            throw Bad($"{where} is not a SHA-256 in hexadecimal", where);
        }

        var bytes = new byte[32];
        for (var i = 0; i < bytes.Length; i++)
        {
            bytes[i] = byte.TryParse(text.Substring(2 * i, 2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var b)
                ? b
                : throw Bad($"{where} is not a SHA-256 in hexadecimal", where);
        }

        return bytes;
    }

    private static void RequireObject(JsonElement element, string where)
    {
        if (element.ValueKind != JsonValueKind.Object)
        {
            throw Bad($"{where} is not an object", where);
        }
    }

    private static JsonElement RequireArray(JsonElement element, string name, string where)
    {
        var value = Require(element, name, where);
        return value.ValueKind == JsonValueKind.Array ? value : throw Bad($"{where}.{name} is not an array", where);
    }

    private static JsonElement Require(JsonElement element, string name, string where)
    {
        RequireObject(element, where);
        return element.TryGetProperty(name, out var value) ? value : throw Bad($"{where} has no \"{name}\"", where);
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
                throw Bad($"{where}: its bytes are not base64", where);
            }

            if (decoded.AsSpan().IndexOf((byte)0) >= 0)
            {
                throw Bad($"{where}: its bytes hold a NUL", where);
            }

            var text = KernelNames.GetString(decoded);
            if (value.ValueKind != JsonValueKind.String || !string.Equals(value.GetString(), AbsolutePathJsonConverter.Lossy(text), StringComparison.Ordinal))
            {
                throw Bad($"{where} does not match its bytes", where);
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

        return plain is not null ? ParsePath(plain, where) : throw Bad($"{where} is not an absolute path", where);
    }

    private static AbsolutePath ParsePath(string text, string where)
    {
        if (text.Length == 0 || !IsFullyQualified(text))
        {
            throw Bad($"{where} is not an absolute path", where);
        }

        try
        {
            var path = AbsolutePath.Parse(text);

            // A report is a list of exact names: "." or ".." components, doubled or trailing separators are not ours.
            return string.Equals(path.ToString(), text, StringComparison.Ordinal) ? path : throw Bad($"{where} is not a normalized path", where);
        }
        catch (ArgumentException ex)
        {
            throw Bad($"{where} is not a valid path: {ex.Message}", where);
        }
    }

#if NET
    private static bool IsFullyQualified(string text) => Path.IsPathFullyQualified(text);
#else
    // netstandard2.0 has no IsPathFullyQualified; a rooted path that is not fully qualified (C:x, \x) fails the
    // normalized-path check after it.
    private static bool IsFullyQualified(string text) => Path.IsPathRooted(text);
#endif

    private static long ReadInt64(JsonElement element, string name, string where)
    {
        var value = Require(element, name, where);
        return value.ValueKind == JsonValueKind.Number && value.TryGetInt64(out var number) && number >= 0
            ? number
            : throw Bad($"{where}.{name} is not a non-negative integer", where);
    }

    private static ulong ReadUInt64(JsonElement element, string name, string where)
    {
        var value = Require(element, name, where);
        return value.ValueKind == JsonValueKind.Number && value.TryGetUInt64(out var number)
            ? number
            : throw Bad($"{where}.{name} is not a non-negative integer", where);
    }

    private static DateTime ReadTime(JsonElement element, string name, string where, bool required)
    {
        if (!element.TryGetProperty(name, out var value))
        {
            return required ? throw Bad($"{where} has no \"{name}\"", where) : DateTime.MinValue;
        }

        return value.ValueKind == JsonValueKind.String
            && DateTime.TryParseExact(value.GetString(), "O", CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out var time)
            && time.Kind == DateTimeKind.Utc
            ? time
            : throw Bad($"{where}.{name} is not a UTC time in round-trip format (such as 2026-01-31T12:00:00.1234567Z)", where);
    }

    private static ReportFormatException Bad(string message, string where) => new(message, where, null);
}
