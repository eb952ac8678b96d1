using System.Globalization;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Unicode;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Topology;

namespace Dedup.Core.Reports.Html;

/// <summary>
/// The HTML report (<see cref="ReportWriter.CreateHtml(Stream, string?)"/>): one self-contained page (see
/// <see cref="HtmlPage"/>) whose data sits once, as compact JSON, in a <c>&lt;script type="application/json"&gt;</c>
/// block, streamed as the groups arrive. Every <c>&lt;</c>, <c>&gt;</c> and <c>&amp;</c> in it is a <c>\u</c> escape,
/// so no name can end the block or open a tag; the page's script reads it as text and shows names as text only.
/// The data: <c>g</c> the file groups <c>[kind, size, kept, [folder, name, …], extra?]</c> (kind 0 whole file, 1 media
/// payload, 2 across machines; kept is the index of the copy <c>dedup delete</c> keeps by default (see
/// <see cref="KeptIndex"/>), -1 for none: a group across machines is acted on only through this machine's copies
/// compared byte for byte, <see cref="DuplicateGroup.LocalPart"/>, and keeps one of those); <c>f</c> the folder
/// groups; <c>d</c> the folder
/// table (<see cref="HtmlFolderTable"/>); <c>s</c> the summary; <c>e</c> the errors; <c>m</c> when, where and how it ran.
/// </summary>
internal sealed class HtmlReportWriter : ReportWriter
{
    // The HTML-sensitive characters are always escaped by this encoder; everything else that JSON allows is written as it is.
    private static readonly JavaScriptEncoder Encoder = JavaScriptEncoder.Create(UnicodeRanges.All);

    private readonly Stream _stream;
    private readonly Utf8JsonWriter _json;
    private readonly HtmlFolderTable _folders = new();
    private readonly List<DuplicateFolderGroup> _folderGroups = [];
    private readonly string? _options;
    private readonly DateTimeOffset _written = DateTimeOffset.UtcNow;
    private readonly TrashLocator _trash = TrashLocator.Create(); // the planner's test: a copy in a trash is never kept
    private IReadOnlyList<ScanRoot> _roots = [];
    private bool _ended;

    /// <param name="stream">Where the page goes.</param>
    /// <param name="options">How the scan was asked for, shown with the totals; <see langword="null"/> for nothing.</param>
    internal HtmlReportWriter(Stream stream, string? options)
    {
        _stream = stream;
        _options = options;
        _stream.Write(HtmlPage.Head, 0, HtmlPage.Head.Length);
        _json = new Utf8JsonWriter(stream, new JsonWriterOptions { Encoder = Encoder });
        _json.WriteStartObject();
        _json.WriteStartArray("g");
    }

    public override void WriteGroup(DuplicateGroup group)
    {
        ArgumentNullException.ThrowIfNull(group);
        var acrossMachines = !group.Sha256.IsEmpty;
        var media = group.Match == ContentMatch.MediaPayload;
        var kept = KeptIndex(group);
        _json.WriteStartArray();
        _json.WriteNumberValue(acrossMachines ? 2 : media ? 1 : 0);
        _json.WriteNumberValue(group.Size);
        _json.WriteNumberValue(kept);
        _json.WriteStartArray();
        foreach (var file in group.Files)
        {
            _folders.WritePath(_json, file.Path);
        }

        _json.WriteEndArray();
        var links = group.Files.Any(f => f.OtherLinks.Count > 0);
        var machines = acrossMachines || group.Files.Any(f => f.Machine is not null);
        if (!group.VerifiedByBytes || media || machines || links)
        {
            WriteExtra(group, media, acrossMachines, machines, links);
        }

        _json.WriteEndArray();
        if (_json.BytesPending > 64 * 1024)
        {
            _json.Flush();
        }
    }

    /// <summary>
    /// What only some groups have: a hash match, a media format and each copy's length, each copy's machine (<c>m</c>, in
    /// a scan with a catalog), which copies of a group across machines matched by SHA-256 only (<c>s</c>: 1 or 0 each,
    /// as JSON's <c>sha256Only</c>), other names.
    /// </summary>
    private void WriteExtra(DuplicateGroup group, bool media, bool acrossMachines, bool machines, bool links)
    {
        _json.WriteStartObject();
        if (!group.VerifiedByBytes)
        {
            _json.WriteNumber("h", 1);
        }

        if (media)
        {
            if (group.MediaFormat is { } format)
            {
                _json.WriteString("fmt", MediaFormatNames.Of(format));
            }

            _json.WriteStartArray("len");
            foreach (var file in group.Files)
            {
                _json.WriteNumberValue(file.Length);
            }

            _json.WriteEndArray();
        }

        if (machines)
        {
            _json.WriteStartArray("m");
            foreach (var file in group.Files)
            {
                _json.WriteStringValue(file.Machine is null ? null : PathText.Escape(file.Machine));
            }

            _json.WriteEndArray();
        }

        if (acrossMachines)
        {
            _json.WriteStartArray("s");
            foreach (var file in group.Files)
            {
                _json.WriteNumberValue(file.MatchedBySha256 ? 1 : 0);
            }

            _json.WriteEndArray();
        }

        if (links)
        {
            _json.WriteStartArray("l");
            for (var i = 0; i < group.Files.Count; i++)
            {
                foreach (var link in group.Files[i].OtherLinks)
                {
                    _json.WriteNumberValue(i);
                    _folders.WritePath(_json, link);
                }
            }

            _json.WriteEndArray();
        }

        _json.WriteEndObject();
    }

    public override void WriteFolderGroup(DuplicateFolderGroup group)
    {
        ArgumentNullException.ThrowIfNull(group);
        _folderGroups.Add(group);
    }

    public override void WriteRoots(IReadOnlyList<ScanRoot> roots) => _roots = roots ?? throw new ArgumentNullException(nameof(roots));

    public override void WriteSummary(ScanSummary summary)
    {
        ArgumentNullException.ThrowIfNull(summary);
        _json.WriteEndArray();
        WriteFolderGroups();
        _json.WriteStartArray("e");
        foreach (var error in summary.Errors)
        {
            _json.WriteStartArray();
            _json.WriteStringValue(PathText.Escape(error.Path));
            _json.WriteStringValue(error.Kind.ToString());
            _json.WriteStringValue(PathText.EscapeMessage(error.Message));
            _json.WriteEndArray();
        }

        _json.WriteEndArray();
        WriteSummaryObject(summary);
        _json.WriteStartObject("m");
        _json.WriteString("at", _written.ToString("yyyy-MM-dd HH:mm:ss 'UTC'", CultureInfo.InvariantCulture));
        _json.WriteString("host", PathText.Escape(Environment.MachineName));
        if (_options is not null)
        {
            _json.WriteString("opt", PathText.EscapeMessage(_options));
        }

        _json.WriteString("sep", Path.DirectorySeparatorChar.ToString());
        _json.WriteStartArray("roots");
        foreach (var root in _roots)
        {
            _folders.WritePath(_json, root.Path);
        }

        _json.WriteEndArray();
        _json.WriteEndObject();
        _folders.Write(_json, "d"); // last: every folder the rest names is in it
        _json.WriteEndObject();
        _ended = true;
    }

    /// <summary>
    /// Each folder group: <c>[exact, files, bytes, wastedBytes, kept, [folder, …], verified, [[kind, path], …]]</c>;
    /// the kept folder is the first in path order but never one in a trash while another is not, as a folder plan keeps.
    /// </summary>
    private void WriteFolderGroups()
    {
        _json.WriteStartArray("f");
        foreach (var group in _folderGroups)
        {
            _json.WriteStartArray();
            _json.WriteNumberValue(group.IsExact ? 1 : 0);
            _json.WriteNumberValue(group.Files);
            _json.WriteNumberValue(group.Bytes);
            _json.WriteNumberValue(group.WastedBytes);
            _json.WriteNumberValue(FirstKept(group.Folders, static folder => folder, _trash.IsInTrash));
            _json.WriteStartArray();
            foreach (var folder in group.Folders)
            {
                _json.WriteNumberValue(_folders.IndexOf(folder));
            }

            _json.WriteEndArray();
            _json.WriteNumberValue(group.VerifiedByBytes ? 1 : 0);
            _json.WriteStartArray();
            foreach (var difference in group.Differences)
            {
                _json.WriteStartArray();
                _json.WriteStringValue(difference.Kind switch
                {
                    FolderDifferenceKind.OnlyInFirst => "only in first",
                    FolderDifferenceKind.OnlyInSecond => "only in second",
                    FolderDifferenceKind.Unknown => "unknown",
                    _ => "changed",
                });
                _json.WriteStringValue(PathText.Escape(difference.RelativePath));
                _json.WriteEndArray();
            }

            _json.WriteEndArray();
            _json.WriteEndArray();
        }

        _json.WriteEndArray();
    }

    /// <summary>
    /// The index of the copy <c>dedup delete</c> keeps by default, decided as the planner decides
    /// (<c>KeepRule.SelectKept</c>): a copy in a trash folder or with a temporary name (<see cref="TrashLocator.IsDisposableFile"/>,
    /// by its names and its real location) only when every copy is one, then the first in path order
    /// (<see cref="KeepOrder"/>, <c>KeepRule.PathOrder</c>). Across machines only the copies an action may touch compete
    /// (<see cref="DuplicateGroup.LocalPart"/>); -1 when fewer than two are left.
    /// </summary>
    private int KeptIndex(DuplicateGroup group)
    {
        if (group.LocalPart() is not { } local)
        {
            return -1;
        }

        var kept = FirstKept(local.Files, static file => file.Path, file => _trash.IsDisposableFile(file.Path));
        for (var i = 0; i < group.Files.Count; i++)
        {
            if (ReferenceEquals(group.Files[i], local.Files[kept]))
            {
                return i;
            }
        }

        return -1; // not reached: the local part holds the group's own files
    }

    /// <summary>The index of the item kept: not disposable before disposable, then the first in <see cref="KeepOrder"/>.</summary>
    private static int FirstKept<T>(IReadOnlyList<T> items, Func<T, AbsolutePath> path, Func<T, bool> isDisposable)
    {
        var disposable = new bool[items.Count];
        for (var i = 0; i < items.Count; i++)
        {
            disposable[i] = isDisposable(items[i]); // once each, as the planner asks
        }

        var best = 0;
        for (var i = 1; i < items.Count; i++)
        {
            var rank = disposable[i].CompareTo(disposable[best]);
            if (rank < 0 || (rank == 0 && KeepOrder.Compare(path(items[i]), path(items[best])) < 0))
            {
                best = i;
            }
        }

        return best;
    }

    private void WriteSummaryObject(ScanSummary summary)
    {
        _json.WriteStartObject("s");
        _json.WriteNumber("files", summary.FilesScanned);
        _json.WriteNumber("groups", summary.Groups);
        _json.WriteNumber("dup", summary.DuplicateFiles);
        _json.WriteNumber("wasted", summary.WastedBytes);
        _json.WriteNumber("errors", summary.Errors.Count);
        if (summary.BytesRead > 0)
        {
            _json.WriteNumber("read", summary.BytesRead);
        }

        if (summary.Elapsed > TimeSpan.Zero)
        {
            _json.WriteNumber("secs", Math.Round(summary.Elapsed.TotalSeconds, 2));
        }

        if (summary.Folders is { } folders)
        {
            _json.WriteStartObject("folders");
            _json.WriteNumber("groups", folders.Groups);
            _json.WriteNumber("copied", folders.CopiedFolders);
            _json.WriteNumber("files", folders.CopiedFiles);
            _json.WriteNumber("wasted", folders.WastedBytes);
            _json.WriteNumber("partial", folders.PartialOverlaps);
            _json.WriteEndObject();
        }

        if (summary.Catalog is { } catalog)
        {
            _json.WriteStartObject("catalog");
            _json.WriteString("machine", PathText.Escape(catalog.Machine));
            _json.WriteNumber("recorded", catalog.FilesRecorded);
            _json.WriteNumber("across", catalog.GroupsAcrossMachines);
            if (catalog.Error is { } error)
            {
                _json.WriteString("error", PathText.EscapeMessage(error.Message));
            }

            _json.WriteEndObject();
        }

        _json.WriteEndObject();
    }

    public override void Flush()
    {
        _json.Flush();
        if (_ended)
        {
            _stream.Write(HtmlPage.Tail, 0, HtmlPage.Tail.Length);
            _ended = false;
        }

        _stream.Flush();
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _json.Dispose();
        }
    }
}
