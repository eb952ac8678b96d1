using System.Text.Json;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Cli.Output;

/// <summary>
/// The totals of a saved JSON report, for <c>dedup report</c> to show: the library reads a report's groups back
/// (<see cref="Dedup.Core.Reports.DuplicateReport"/>) but not its summary, which is for people. What the summary does
/// not hold (the time the scan took, bytes read without --stats) stays zero, and the page leaves it out.
/// </summary>
internal static class SavedSummary
{
    /// <summary>The report's <c>summary</c>, or <see langword="null"/> when it has none (the caller reports the file as malformed).</summary>
    /// <exception cref="JsonException">The report is not JSON.</exception>
    public static ScanSummary? Read(byte[] report)
    {
        var reader = new Utf8JsonReader(report, new JsonReaderOptions { MaxDepth = 256 });
        while (reader.Read())
        {
            if (reader.TokenType == JsonTokenType.PropertyName && reader.CurrentDepth == 1 && reader.ValueTextEquals("summary"))
            {
                reader.Read();
                using var document = JsonDocument.ParseValue(ref reader);
                return FromElement(document.RootElement);
            }

            if (reader.TokenType is JsonTokenType.StartObject or JsonTokenType.StartArray && reader.CurrentDepth >= 1)
            {
                reader.Skip();
            }
        }

        return null;
    }

    private static ScanSummary? FromElement(JsonElement summary)
    {
        if (summary.ValueKind != JsonValueKind.Object)
        {
            return null;
        }

        var errors = new List<ScanError>();
        if (summary.TryGetProperty("errors", out var list) && list.ValueKind == JsonValueKind.Array)
        {
            foreach (var error in list.EnumerateArray())
            {
                var kind = Enum.TryParse<ScanErrorKind>(Text(error, "kind"), out var parsed) ? parsed : ScanErrorKind.IOError;
                errors.Add(new ScanError(PathOf(error), kind, Text(error, "message") ?? string.Empty));
            }
        }

        return new ScanSummary
        {
            FilesScanned = Number(summary, "files"),
            BytesRead = Number(summary, "bytesRead"),
            Groups = (int)Number(summary, "groups"),
            DuplicateFiles = 0,
            WastedBytes = Number(summary, "wastedBytes"),
            Errors = errors,
            Elapsed = TimeSpan.Zero,
            Folders = summary.TryGetProperty("folders", out var folders) && folders.ValueKind == JsonValueKind.Object
                ? new FolderSummary
                {
                    Groups = (int)Number(folders, "groups"),
                    CopiedFolders = (int)Number(folders, "copiedFolders"),
                    CopiedFiles = Number(folders, "copiedFiles"),
                    WastedBytes = Number(folders, "wastedBytes"),
                    PartialOverlaps = (int)Number(folders, "partialOverlaps"),
                }
                : null,
            Catalog = summary.TryGetProperty("catalog", out var catalog) && catalog.ValueKind == JsonValueKind.Object
                ? new CatalogStatistics
                {
                    Machine = Text(catalog, "machine") ?? string.Empty,
                    FilesRecorded = Number(catalog, "filesRecorded"),
                    FilesHashed = Number(catalog, "filesHashed"),
                    GroupsAcrossMachines = (int)Number(catalog, "groupsAcrossMachines"),
                    Error = Text(catalog, "error") is { } message ? new InvalidOperationException(message) : null,
                }
                : null,
        };
    }

    /// <summary>An error's path: its exact bytes when the report has them (a name that is not UTF-8), else its string.</summary>
    private static string PathOf(JsonElement error)
    {
        if (error.TryGetProperty("pathBytes", out var exact) && exact.ValueKind == JsonValueKind.String && exact.TryGetBytesFromBase64(out var bytes))
        {
            return KernelNames.GetString(bytes);
        }

        return Text(error, "path") ?? string.Empty;
    }

    private static long Number(JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Number && value.TryGetInt64(out var number) ? number : 0;

    private static string? Text(JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;
}
