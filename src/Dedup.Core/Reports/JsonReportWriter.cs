using System.Globalization;
using System.Text.Encodings.Web;
using System.Text.Json;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Reports;

/// <summary>
/// The JSON contract: <c>{"groups":[{"size":N,"files":[{"path":"…","device":D,"inode":I,"mtime":"…","ctime":"…","links":["…"]}]}],
/// "roots":[{"path":"…","device":D,"inode":I}],"summary":{…}}</c>, streamed: each group is written when it arrives.
/// The identities (device, inode, times) let <c>--from-report</c> act only on the very files that were compared.
/// A Linux name that is not valid UTF-8 cannot be a JSON string: <c>path</c> then shows each byte that is not valid
/// UTF-8 as U+FFFD (lossy, for people) and <c>pathBytes</c> beside it holds the exact bytes in base64; a file's
/// <c>links</c> get a parallel <c>linksBytes</c> array (base64, or <c>null</c> for a link whose name is valid UTF-8).
/// Both appear only when some name needs them (see <see cref="KernelNames"/>). <see cref="JsonReportReader"/> reads it back.
/// </summary>
internal sealed class JsonReportWriter : ReportWriter
{
    // The per-file property names, encoded once.
    private static readonly JsonEncodedText PathName = JsonEncodedText.Encode("path");
    private static readonly JsonEncodedText DeviceName = JsonEncodedText.Encode("device");
    private static readonly JsonEncodedText InodeName = JsonEncodedText.Encode("inode");
    private static readonly JsonEncodedText MtimeName = JsonEncodedText.Encode("mtime");
    private static readonly JsonEncodedText CtimeName = JsonEncodedText.Encode("ctime");

    private readonly Utf8JsonWriter _json;
    private readonly Stream _stream;
    private bool _ended;
    private IReadOnlyList<ScanRoot> _roots = [];
    private readonly List<DuplicateFolderGroup> _folderGroups = [];
    private bool _folderMode;
    private readonly bool _runStatistics;

    /// <param name="stream">Where the JSON goes.</param>
    /// <param name="runStatistics">Whether the summary holds what the run cost (<c>bytesRead</c>, the cache's counters): they vary from run to run, the rest does not.</param>
    internal JsonReportWriter(Stream stream, bool runStatistics = false)
    {
        _stream = stream;
        _runStatistics = runStatistics;
        _json = new Utf8JsonWriter(stream, new JsonWriterOptions { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, SkipValidation = false });
        _json.WriteStartObject();
        _json.WriteStartArray("groups");
    }

    public override void WriteGroup(DuplicateGroup group)
    {
        ArgumentNullException.ThrowIfNull(group);
        _json.WriteStartObject();
        _json.WriteNumber("size", group.Size);
        _json.WriteStartArray("files");
        foreach (var file in group.Files)
        {
            _json.WriteStartObject();
            WritePath(file.Path);
            if (file.Machine is not null)
            {
                _json.WriteString("machine", file.Machine);
            }

            if (!group.Sha256.IsEmpty)
            {
                // In a group across machines, always: a reader takes a file without it for one matched by digest only.
                _json.WriteBoolean("sha256Only", file.MatchedBySha256);
            }

            _json.WriteNumber(DeviceName, file.Identity.Device);
            _json.WriteNumber(InodeName, file.Identity.FileId);
            WriteTime(MtimeName, file.LastWriteTimeUtc);
            if (file.LastChangeTimeUtc != DateTime.MinValue)
            {
                WriteTime(CtimeName, file.LastChangeTimeUtc);
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
                    _json.WriteStringValue(Lossy(link.ToString()));
                }

                _json.WriteEndArray();
                if (file.OtherLinks.Any(link => KernelNames.HasEscapedBytes(link.ToString())))
                {
                    _json.WriteStartArray("linksBytes");
                    foreach (var link in file.OtherLinks)
                    {
                        if (ExactBytes(link.ToString()) is { } bytes)
                        {
                            _json.WriteBase64StringValue(bytes);
                        }
                        else
                        {
                            _json.WriteNullValue();
                        }
                    }

                    _json.WriteEndArray();
                }
            }

            _json.WriteEndObject();
        }

        _json.WriteEndArray();
        if (group.Match == ContentMatch.MediaPayload)
        {
            _json.WriteString("match", "mediaPayload");
            if (group.MediaFormat is { } format)
            {
                _json.WriteString("format", MediaFormatNames.Of(format));
            }
        }

        if (!group.VerifiedByBytes)
        {
            _json.WriteBoolean("verifiedByBytes", false);
        }

        if (!group.Sha256.IsEmpty)
        {
            _json.WriteString("digest", ToHexLower(group.Sha256.Span));
        }

        _json.WriteEndObject();
        if (_json.BytesPending > 64 * 1024)
        {
            _json.Flush();
        }
    }

    public override void WriteRoots(IReadOnlyList<ScanRoot> roots) => _roots = roots ?? throw new ArgumentNullException(nameof(roots));

    /// <summary>Kept for the <c>folderGroups</c> array, written after <c>groups</c> (which is streamed).</summary>
    public override void WriteFolderGroup(DuplicateFolderGroup group)
    {
        ArgumentNullException.ThrowIfNull(group);
        _folderMode = true;
        _folderGroups.Add(group);
    }

    private void WriteFolderGroups()
    {
        _json.WriteStartArray("folderGroups");
        foreach (var group in _folderGroups)
        {
            _json.WriteStartObject();
            _json.WriteStartArray("folders");
            foreach (var folder in group.Folders)
            {
                _json.WriteStartObject();
                WritePath(folder.ToString());
                _json.WriteEndObject();
            }

            _json.WriteEndArray();
            _json.WriteNumber("files", group.Files);
            _json.WriteNumber("bytes", group.Bytes);
            _json.WriteNumber("wastedBytes", group.WastedBytes);
            if (!group.VerifiedByBytes)
            {
                _json.WriteBoolean("verifiedByBytes", false);
            }

            if (!group.IsExact)
            {
                _json.WriteStartArray("differences");
                foreach (var difference in group.Differences)
                {
                    _json.WriteStartObject();
                    _json.WriteString("path", Lossy(difference.RelativePath));
                    _json.WriteString("kind", difference.Kind switch
                    {
                        FolderDifferenceKind.OnlyInFirst => "onlyInFirst",
                        FolderDifferenceKind.OnlyInSecond => "onlyInSecond",
                        FolderDifferenceKind.Unknown => "unknown",
                        _ => "changed",
                    });
                    _json.WriteEndObject();
                }

                _json.WriteEndArray();
            }

            _json.WriteEndObject();
        }

        _json.WriteEndArray();
    }

    public override void WriteSummary(ScanSummary summary)
    {
        ArgumentNullException.ThrowIfNull(summary);
        _json.WriteEndArray();

        // In folder mode "folderGroups" is there even when empty: the summary then has its folder totals.
        if (_folderMode || summary.Folders is not null)
        {
            WriteFolderGroups();
        }

        _json.WriteStartArray("roots");
        foreach (var root in _roots)
        {
            _json.WriteStartObject();
            WritePath(root.Path.ToString());
            _json.WriteNumber("device", root.Identity.Device);
            _json.WriteNumber("inode", root.Identity.FileId);
            if (root.FolderIdentity != default)
            {
                // A file root: its folder's identity too, so that acting from the report refuses a folder swapped since.
                _json.WriteNumber("folderDevice", root.FolderIdentity.Device);
                _json.WriteNumber("folderInode", root.FolderIdentity.FileId);
            }

            _json.WriteEndObject();
        }

        _json.WriteEndArray();
        _json.WriteStartObject("summary");
        _json.WriteNumber("files", summary.FilesScanned);
        if (_runStatistics)
        {
            _json.WriteNumber("bytesRead", summary.BytesRead);
        }

        _json.WriteNumber("groups", summary.Groups);
        _json.WriteNumber("wastedBytes", summary.WastedBytes);
        if (summary.Cache is { } cache && _runStatistics)
        {
            WriteCounters("cache", ("hits", cache.Hits), ("misses", cache.Misses), ("pruned", cache.Pruned), ("written", cache.Written), ("warnings", cache.Warnings.Count));
        }

        if (summary.Catalog is { } catalog)
        {
            _json.WriteStartObject("catalog");
            _json.WriteString("machine", catalog.Machine);
            _json.WriteNumber("filesRecorded", catalog.FilesRecorded);
            _json.WriteNumber("filesHashed", catalog.FilesHashed);
            _json.WriteNumber("groupsAcrossMachines", catalog.GroupsAcrossMachines);
            if (catalog.FilesHashedOnRequest > 0)
            {
                _json.WriteNumber("filesHashedOnRequest", catalog.FilesHashedOnRequest);
            }

            if (catalog.PendingMatches.Count > 0)
            {
                // Per other machine: this scan's files that may match files there once it scans again.
                _json.WriteStartObject("pendingMatches");
                foreach (var (machine, files) in catalog.PendingMatches.OrderBy(entry => entry.Key, StringComparer.Ordinal))
                {
                    _json.WriteNumber(machine, files);
                }

                _json.WriteEndObject();
            }
            if (catalog.Error is { } error)
            {
                _json.WriteString("error", error.Message);
            }

            _json.WriteEndObject();
        }

        if (summary.Folders is { } folders)
        {
            // The file totals above leave out the files inside the copies: these are the copies.
            WriteCounters("folders", ("groups", folders.Groups), ("copiedFolders", folders.CopiedFolders), ("copiedFiles", folders.CopiedFiles), ("wastedBytes", folders.WastedBytes), ("partialOverlaps", folders.PartialOverlaps));
        }

        _json.WriteStartArray("errors");
        foreach (var error in summary.Errors)
        {
            _json.WriteStartObject();
            WritePath(error.Path);
            _json.WriteString("message", error.Message);
            _json.WriteString("kind", error.Kind.ToString());
            _json.WriteEndObject();
        }

        _json.WriteEndArray();
        _json.WriteEndObject();
        _json.WriteEndObject();
        _ended = true;
    }

    /// <summary>Writes one object of the summary that holds only counters, in the order given.</summary>
    private void WriteCounters(string name, params (string Name, long Value)[] counters)
    {
        _json.WriteStartObject(name);
        foreach (var (counter, value) in counters)
        {
            _json.WriteNumber(counter, value);
        }

        _json.WriteEndObject();
    }

    /// <summary>
    /// Writes a file's <c>path</c> as UTF-8 made from its names (no string of the whole path per file: the report of
    /// 135k files spent a third of its time making and transcoding them, perf); a path holding escaped bytes goes the
    /// way of <see cref="WritePath(string)"/>, with <c>pathBytes</c>.
    /// </summary>
    private void WritePath(AbsolutePath path)
    {
#if NET
        Span<byte> utf8 = stackalloc byte[1024];
        var written = TryWriteUtf8(path, utf8);
        if (written >= 0)
        {
            _json.WriteString(PathName, utf8[..written]);
        }
        else
        {
            WritePath(path.ToString());
        }
#else
        WritePath(path.ToString());
#endif
    }

#if NET

    /// <summary>The path as <see cref="AbsolutePath.ToString"/> spells it, in UTF-8; -1 if it does not fit or a name is not valid UTF-16 (escaped bytes).</summary>
    private static int TryWriteUtf8(AbsolutePath path, Span<byte> destination)
    {
        var offset = 0;
        if (path.Parent is { } parent)
        {
            offset = TryWriteUtf8(parent, destination);
            if (offset < 0)
            {
                return -1;
            }

            if (offset > 0 && destination[offset - 1] != (byte)Path.DirectorySeparatorChar)
            {
                if (offset >= destination.Length)
                {
                    return -1;
                }

                destination[offset++] = (byte)Path.DirectorySeparatorChar;
            }
        }

        var status = System.Text.Unicode.Utf8.FromUtf16(path.Name, destination[offset..], out _, out var bytes, replaceInvalidSequences: false);
        return status == System.Buffers.OperationStatus.Done ? offset + bytes : -1;
    }
#endif

    /// <summary>A time as <c>"O"</c> formats it, written from UTF-8 formatted in place.</summary>
    private void WriteTime(JsonEncodedText name, DateTime value)
    {
#if NET
        Span<byte> utf8 = stackalloc byte[64];
        if (value.TryFormat(utf8, out var written, "O", CultureInfo.InvariantCulture))
        {
            _json.WriteString(name, utf8[..written]);
        }
        else
        {
            _json.WriteString(name, value.ToString("O", CultureInfo.InvariantCulture));
        }
#else
        _json.WriteString(name, value.ToString("O", CultureInfo.InvariantCulture));
#endif
    }

    /// <summary>Lower-case hexadecimal, as <c>Convert.ToHexStringLower</c> (net9+) writes it.</summary>
    private static string ToHexLower(ReadOnlySpan<byte> bytes)
    {
        var chars = new char[bytes.Length * 2];
        for (var i = 0; i < bytes.Length; i++)
        {
            chars[2 * i] = "0123456789abcdef"[bytes[i] >> 4];
            chars[(2 * i) + 1] = "0123456789abcdef"[bytes[i] & 0xF];
        }

        return new string(chars);
    }

    /// <summary>
    /// Writes <c>path</c> as a JSON string can hold it (lossy) and, for a path that is not valid UTF-8, <c>pathBytes</c>
    /// beside it with the exact bytes in base64.
    /// </summary>
    private void WritePath(string path)
    {
        _json.WriteString(PathName, Lossy(path));
        if (ExactBytes(path) is { } bytes)
        {
            _json.WriteBase64String("pathBytes", bytes);
        }
    }

    /// <summary>The exact bytes of a path holding escaped bytes; <see langword="null"/> for one that is valid UTF-8 (or cannot be encoded).</summary>
    private static byte[]? ExactBytes(string path) =>
        KernelNames.HasEscapedBytes(path) && KernelNames.TryGetBytes(path, out var bytes) ? bytes : null;

    private static string Lossy(string path) => AbsolutePathJsonConverter.Lossy(path);

    public override void Flush()
    {
        _json.Flush();
        if (_ended)
        {
            _stream.WriteByte((byte)'\n');
            _ended = false;
        }
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _json.Dispose();
        }
    }
}
