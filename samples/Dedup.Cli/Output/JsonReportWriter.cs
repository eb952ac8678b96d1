using System.Globalization;
using System.Text.Encodings.Web;
using System.Text.Json;
using Dedup.Core;
using Dedup.Core.Reporting;

namespace Dedup.Cli.Output;

/// <summary>
/// The JSON contract: <c>{"groups":[{"size":N,"files":[{"path":"…","device":D,"inode":I,"mtime":"…","ctime":"…","links":["…"]}]}],
/// "roots":[{"path":"…","device":D,"inode":I}],"summary":{…}}</c>, streamed: each group is written when it arrives.
/// The identities (device, inode, times) let <c>--from-report</c> act only on the very files that were compared.
/// </summary>
internal sealed class JsonReportWriter : ReportWriter
{
    private readonly Utf8JsonWriter _json;
    private readonly Stream _stream;
    private bool _ended;
    private IReadOnlyList<ScanRoot> _roots = [];

    public JsonReportWriter(Stream stream)
    {
        _stream = stream;
        _json = new Utf8JsonWriter(stream, new JsonWriterOptions { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, SkipValidation = false });
        _json.WriteStartObject();
        _json.WriteStartArray("groups");
    }

    public override void WriteGroup(DuplicateGroup group)
    {
        _json.WriteStartObject();
        _json.WriteNumber("size", group.Size);
        _json.WriteStartArray("files");
        foreach (var file in group.Files)
        {
            _json.WriteStartObject();
            _json.WriteString("path", file.Path.ToString());
            _json.WriteNumber("device", file.Identity.Device);
            _json.WriteNumber("inode", file.Identity.FileId);
            _json.WriteString("mtime", file.LastWriteTimeUtc.ToString("O", CultureInfo.InvariantCulture));
            if (file.LastChangeTimeUtc != DateTime.MinValue)
            {
                _json.WriteString("ctime", file.LastChangeTimeUtc.ToString("O", CultureInfo.InvariantCulture));
            }

            if (group.Match == ContentMatch.MediaPayload)
            {
                _json.WriteNumber("size", file.Length);
            }

            if (file.OtherLinks.Count > 0)
            {
                _json.WriteStartArray("links");
                foreach (var link in file.OtherLinks)
                {
                    _json.WriteStringValue(link.ToString());
                }

                _json.WriteEndArray();
            }

            _json.WriteEndObject();
        }

        _json.WriteEndArray();
        if (group.Match == ContentMatch.MediaPayload)
        {
            _json.WriteString("match", "mediaPayload");
        }

        if (!group.VerifiedByBytes)
        {
            _json.WriteBoolean("verifiedByBytes", false);
        }

        _json.WriteEndObject();
        if (_json.BytesPending > 64 * 1024)
        {
            _json.Flush();
        }
    }

    public override void WriteRoots(IReadOnlyList<ScanRoot> roots) => _roots = roots;

    public override void WriteSummary(ScanSummary summary)
    {
        _json.WriteEndArray();
        _json.WriteStartArray("roots");
        foreach (var root in _roots)
        {
            _json.WriteStartObject();
            _json.WriteString("path", root.Path.ToString());
            _json.WriteNumber("device", root.Identity.Device);
            _json.WriteNumber("inode", root.Identity.FileId);
            _json.WriteEndObject();
        }

        _json.WriteEndArray();
        _json.WriteStartObject("summary");
        _json.WriteNumber("files", summary.FilesScanned);
        _json.WriteNumber("bytesRead", summary.BytesRead);
        _json.WriteNumber("groups", summary.Groups);
        _json.WriteNumber("wastedBytes", summary.WastedBytes);
        _json.WriteStartArray("errors");
        foreach (var error in summary.Errors)
        {
            _json.WriteStartObject();
            _json.WriteString("path", error.Path);
            _json.WriteString("message", error.Message);
            _json.WriteString("kind", error.Kind.ToString());
            _json.WriteEndObject();
        }

        _json.WriteEndArray();
        _json.WriteEndObject();
        _json.WriteEndObject();
        _ended = true;
    }

    public override void Flush()
    {
        _json.Flush();
        if (_ended)
        {
            _stream.WriteByte((byte)'\n');
            _ended = false;
        }
    }

    public override void Dispose() => _json.Dispose();
}
