using System.Globalization;
using System.Text.Json;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// Reads an action journal (the <c>--log</c> of <c>dedup link/delete</c>, docs/journal.md) for undo: the runs with
/// their roots, every <c>begun</c> line (what undo may take back) and every <c>undone</c> line (what an earlier undo
/// restored). Outcome lines (<c>done</c>, <c>skipped</c>, ...) are not trusted: undo inspects the files instead.
/// </summary>
/// <remarks>
/// A line cut short by a kill (<c>kill -9</c> in the middle of a write) is a valid start of a JSON object that never
/// ends: it is ignored with a note, wherever it is (a later run appends after it). Any other line that is not a
/// journal line stops the reading with an error naming the line: undo never guesses what a damaged journal meant.
/// Version 1 lines (before format 2) carry nothing to undo; each such run is one note.
/// </remarks>
internal sealed class JournalReader
{
    private const int NewestVersion = 2;

    private readonly string _journal;
    private readonly List<JournalRun> _runs = [];
    private readonly List<JournalStep> _steps = [];
    private readonly Dictionary<(string Run, long Seq), List<(ulong Device, ulong Inode)>> _undone = [];
    private readonly List<string> _notes = [];
    private readonly Dictionary<(ulong Device, ulong Inode), List<FolderRecord>> _folders = [];
    private readonly Dictionary<(string Run, long Seq), (ulong Device, ulong Inode)> _stepFolders = [];
    private readonly Dictionary<(string Run, long Seq), (ulong Device, ulong Inode)> _removedFolders = [];
    private readonly Dictionary<(string Run, long Seq), JournalTrashed> _trashed = [];
    private (int First, int Last, int Done)? _oldRun;

    private JournalReader(string journal) => _journal = journal;

    public IReadOnlyList<JournalRun> Runs => _runs;

    /// <summary>The <c>begun</c> lines in the journal's order (oldest first).</summary>
    public IReadOnlyList<JournalStep> Steps => _steps;

    /// <summary>For each step an earlier undo took back: the identities its name was given.</summary>
    public IReadOnlyDictionary<(string Run, long Seq), List<(ulong Device, ulong Inode)>> Undone => _undone;

    /// <summary>
    /// Per folder (the identity its steps' <c>parent</c> gives), the lines that changed or recorded its modification
    /// time, in the journal's order: what undo compares the folder with before it sets its times back.
    /// </summary>
    public IReadOnlyDictionary<(ulong Device, ulong Inode), List<FolderRecord>> Folders => _folders;

    /// <summary>Where a system trash move (Windows, macOS) put each step's file: its <c>trashed</c> lines.</summary>
    public IReadOnlyDictionary<(string Run, long Seq), JournalTrashed> Trashed => _trashed;

    /// <summary>What the reading found worth saying: torn lines, runs logged before format 2.</summary>
    public IReadOnlyList<string> Notes => _notes;

    /// <summary>Whether the journal's last byte is a line end (undo appends its own lines after one).</summary>
    public bool EndsWithNewline { get; private set; } = true;

    /// <summary>Reads the whole journal; throws <see cref="InvalidDataException"/> naming the line that is not a journal line.</summary>
    /// <summary>The journal's bytes, once <see cref="Journal.JournalTrust"/> found that no other user could have written them.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static byte[] ReadTrusted(string journal)
    {
        var fd = Journal.JournalTrust.OpenTrusted(journal, Interop.Libc.O_RDONLY);
        using var handle = new Microsoft.Win32.SafeHandles.SafeFileHandle((nint)fd, ownsHandle: true);
        using var stream = new FileStream(handle, FileAccess.Read, 1);
        using var bytes = new MemoryStream();
        stream.CopyTo(bytes);
        return bytes.ToArray();
    }

    public static JournalReader Read(string journal)
    {
        var reader = new JournalReader(journal);
        var bytes = OperatingSystem.IsLinux() ? ReadTrusted(journal) : System.IO.File.ReadAllBytes(journal);
        reader.EndsWithNewline = bytes.Length == 0 || bytes[^1] == (byte)'\n';
        var lineNumber = 0;
        var start = 0;
        while (start < bytes.Length)
        {
            var end = Array.IndexOf(bytes, (byte)'\n', start);
            var last = end < 0;
            var line = bytes.AsMemory(start, (last ? bytes.Length : end) - start);
            lineNumber++;
            start = last ? bytes.Length : end + 1;
            reader.ReadLine(line, lineNumber, isLast: last || start == bytes.Length);
        }

        reader.EndOldRun();
        return reader;
    }

    private void ReadLine(ReadOnlyMemory<byte> line, int number, bool isLast)
    {
        if (IsBlank(line.Span))
        {
            return;
        }

        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(line);
        }
        catch (JsonException ex)
        {
            if (isLast || IsTorn(line.Span))
            {
                _notes.Add(string.Create(CultureInfo.InvariantCulture, $"line {number} was cut short (an interrupted write) and is ignored"));
                return;
            }

            throw Bad(number, $"not a JSON object ({ex.Message})");
        }

        using (document)
        {
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
            {
                throw Bad(number, "not a JSON object");
            }

            var version = Int(root, "version", number);
            if (version == 1)
            {
                ReadOldLine(root, number);
                return;
            }

            EndOldRun();
            if (version != NewestVersion)
            {
                throw Bad(number, string.Create(CultureInfo.InvariantCulture, $"format version {version} is not one this dedup reads (1 or {NewestVersion}); use a newer dedup"));
            }

            switch (Text(root, "status", number))
            {
                case "run":
                    _runs.Add(new JournalRun(Text(root, "run", number), Text(root, "kind", number), Roots(root, number), number));
                    break;
                case "begun":
                    var step = Step(root, number);
                    _steps.Add(step);
                    if (step.Parent is { } parent)
                    {
                        _stepFolders[(step.Run, step.Seq)] = parent.Identity;
                        AddFolderRecord(parent.Identity, number, null);
                    }

                    if (step.Kind == UndoKinds.RemoveFolder)
                    {
                        _removedFolders[(step.Run, step.Seq)] = (step.Before.File.Device, step.Before.File.Inode);
                    }

                    break;
                case "folderTimes":
                    var folder = Object(root, "parent", number);
                    AddFolderRecord((ULong(folder, "device", number), ULong(folder, "inode", number)), number, Long(root, "mtimeNs", number), IsTrue(root, "kept"), IsTrue(root, "restored"));
                    break;
                case "undone":
                    var restored = Object(root, "restored", number);
                    var key = (Text(root, "run", number), Long(root, "seq", number));
                    if (!_undone.TryGetValue(key, out var list))
                    {
                        _undone[key] = list = [];
                    }

                    list.Add((ULong(restored, "device", number), ULong(restored, "inode", number)));
                    if (_stepFolders.TryGetValue(key, out var undoneIn))
                    {
                        AddFolderRecord(undoneIn, number, null);
                    }

                    if (_removedFolders.TryGetValue(key, out var remade))
                    {
                        AddFolderRecord(remade, number, null); // a removed folder made again: all its times since are undo's
                    }

                    break;
                case "done" or "skipped" or "failed":
                    // An outcome: never trusted for what it says was done, but the folder time it records is what the
                    // step left, which undo compares the folder with (a change since is someone else's).
                    if (root.TryGetProperty("parentMtimeNs", out _) && root.TryGetProperty("seq", out _)
                        && _stepFolders.TryGetValue((Text(root, "run", number), Long(root, "seq", number)), out var outcomeIn))
                    {
                        AddFolderRecord(outcomeIn, number, Long(root, "parentMtimeNs", number));
                    }

                    break;
                case "trashed":
                    _trashed[(Text(root, "run", number), Long(root, "seq", number))] = new JournalTrashed(
                        PathOf(root, "location", number, requireAbsolute: true),
                        root.TryGetProperty("info", out _) ? PathOf(root, "info", number, requireAbsolute: true) : null);
                    break;
                default:
                    break; // other outcomes (interrupted), and a status a newer writer adds: not ours to act on
            }
        }
    }

    /// <summary>Whether the line is the beginning of a JSON value that was never finished (a write cut short).</summary>
    internal static bool IsTorn(ReadOnlySpan<byte> line)
    {
        var reader = new Utf8JsonReader(line, isFinalBlock: false, state: default);
        try
        {
            while (reader.Read())
            {
            }

            return reader.CurrentDepth > 0 || reader.TokenType is JsonTokenType.StartObject or JsonTokenType.PropertyName or JsonTokenType.None;
        }
        catch (JsonException)
        {
            return false;
        }
    }

    private void ReadOldLine(JsonElement root, int number)
    {
        var status = root.TryGetProperty("status", out var s) && s.ValueKind == JsonValueKind.String ? s.GetString() : null;
        var (first, _, done) = _oldRun ?? (number, number, 0);
        _oldRun = (first, number, done + (status == "done" ? 1 : 0));
        if (status == "interrupted")
        {
            EndOldRun();
        }
    }

    private static bool IsTrue(JsonElement element, string name) => element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.True;

    private void AddFolderRecord((ulong, ulong) folder, int line, long? mtimeNs, bool kept = false, bool restored = false)
    {
        if (!_folders.TryGetValue(folder, out var records))
        {
            _folders[folder] = records = [];
        }

        records.Add(new FolderRecord(line, mtimeNs) { Kept = kept, Restored = restored });
    }

    private void EndOldRun()
    {
        if (_oldRun is { } run)
        {
            _notes.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"lines {run.First}-{run.Last}: logged before format 2 ({run.Done} {(run.Done == 1 ? "action" : "actions")} done); cannot be undone"));
            _oldRun = null;
        }
    }

    private JournalStep Step(JsonElement root, int number)
    {
        var before = Object(root, "before", number);
        var xattrs = new List<JournalXattr>();
        if (before.TryGetProperty("xattrs", out var attributes))
        {
            if (attributes.ValueKind != JsonValueKind.Object)
            {
                throw Bad(number, "\"before.xattrs\" is not an object");
            }

            foreach (var attribute in attributes.EnumerateObject())
            {
                xattrs.Add(new JournalXattr(attribute.Name, Base64(attribute.Value, "before.xattrs." + attribute.Name, number)));
            }
        }

        JournalTrash? trash = null;
        if (root.TryGetProperty("trash", out var t))
        {
            trash = new JournalTrash(PathOf(t, "root", number, requireAbsolute: true), PathOf(t, "files", number, requireAbsolute: false), PathOf(t, "info", number, requireAbsolute: false));
        }

        return new JournalStep
        {
            Run = Text(root, "run", number),
            Seq = Long(root, "seq", number),
            Kind = Text(root, "kind", number),
            Path = PathOf(root, "path", number, requireAbsolute: true),
            Kept = root.TryGetProperty("kept", out _) ? PathOf(root, "kept", number, requireAbsolute: true) : null,
            KeptFile = root.TryGetProperty("keptFile", out var kept) ? File(kept, number) : null,
            Before = new JournalBefore(
                File(before, number),
                (uint)Optional(before, "mode", number),
                (uint)Optional(before, "uid", number),
                (uint)Optional(before, "gid", number),
                Optional(before, "atimeNs", number),
                (int)Optional(before, "flags", number),
                xattrs)
            {
                HasMetadata = before.TryGetProperty("mode", out _) && before.TryGetProperty("uid", out _) && before.TryGetProperty("gid", out _) && before.TryGetProperty("atimeNs", out _),
            },
            After = root.TryGetProperty("after", out var after) ? File(after, number) : null,
            Target = root.TryGetProperty("target", out _) ? PathOf(root, "target", number, requireAbsolute: false) : null,
            Trash = trash,
            Parent = root.TryGetProperty("parent", out var p)
                ? new JournalParent(ULong(Object(root, "parent", number), "device", number), ULong(p, "inode", number), Long(p, "atimeNs", number), Long(p, "mtimeNs", number))
                : null,
            Line = number,
        };
    }

    private List<ScanRoot> Roots(JsonElement root, int number)
    {
        if (!root.TryGetProperty("roots", out var roots) || roots.ValueKind != JsonValueKind.Array)
        {
            throw Bad(number, "a run line without \"roots\"");
        }

        var list = new List<ScanRoot>();
        foreach (var element in roots.EnumerateArray())
        {
            var path = AbsolutePath.Parse(PathOf(element, "path", number, requireAbsolute: true));
            var scanRoot = new ScanRoot(path, new FileIdentity(ULong(element, "device", number), ULong(element, "inode", number)));
            if (element.TryGetProperty("folderDevice", out _))
            {
                scanRoot = scanRoot with { FolderIdentity = new FileIdentity(ULong(element, "folderDevice", number), ULong(element, "folderInode", number)) };
            }

            list.Add(scanRoot);
        }

        return list;
    }

    private JournalFile File(JsonElement element, int number) =>
        new(ULong(element, "device", number), ULong(element, "inode", number), Long(element, "size", number), Long(element, "mtimeNs", number));

    /// <summary>A path, exactly: from <c>NAMEBytes</c> (base64 of its bytes) when the line has it, otherwise the text.</summary>
    private string PathOf(JsonElement element, string name, int number, bool requireAbsolute)
    {
        var text = element.TryGetProperty(name + "Bytes", out var bytes)
            ? KernelNames.GetString(Base64(bytes, name + "Bytes", number))
            : Text(element, name, number);
        if (requireAbsolute && OperatingSystem.IsWindows())
        {
            // A journal written on Windows: a full path (X:\ or \\server\share\), without . or .. parts.
            if (text.Contains('\0', StringComparison.Ordinal) || !System.IO.Path.IsPathRooted(text) || !string.Equals(System.IO.Path.GetFullPath(text), text, StringComparison.Ordinal))
            {
                throw Bad(number, $"\"{name}\" is not a full path without . or .. ({PathText.Escape(text)})");
            }

            return text;
        }

        if (requireAbsolute && (!text.StartsWith('/') || text.Contains("/./", StringComparison.Ordinal) || text.Contains("/../", StringComparison.Ordinal)
            || text.Contains("//", StringComparison.Ordinal) || text.EndsWith("/..", StringComparison.Ordinal) || text.EndsWith("/.", StringComparison.Ordinal)
            || text.Contains('\0', StringComparison.Ordinal)))
        {
            throw Bad(number, $"\"{name}\" is not an absolute path without . or .. ({PathText.Escape(text)})");
        }

        return text;
    }

    private byte[] Base64(JsonElement element, string name, int number)
    {
        try
        {
            return element.ValueKind == JsonValueKind.String ? element.GetBytesFromBase64() : throw new FormatException();
        }
        catch (FormatException)
        {
            throw Bad(number, $"\"{name}\" is not base64");
        }
    }

    private JsonElement Object(JsonElement element, string name, int number) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Object ? value : throw Bad(number, $"no object \"{name}\"");

    private string Text(JsonElement element, string name, int number) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString()! : throw Bad(number, $"no text \"{name}\"");

    private long Long(JsonElement element, string name, int number) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Number && value.TryGetInt64(out var n) ? n : throw Bad(number, $"no whole number \"{name}\"");

    private long Optional(JsonElement element, string name, int number) => element.TryGetProperty(name, out _) ? Long(element, name, number) : 0;

    private ulong ULong(JsonElement element, string name, int number) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Number && value.TryGetUInt64(out var n) ? n : throw Bad(number, $"no whole number \"{name}\"");

    private int Int(JsonElement element, string name, int number) => (int)Math.Max(int.MinValue, Math.Min(int.MaxValue, Long(element, name, number)));

    private static bool IsBlank(ReadOnlySpan<byte> line)
    {
        foreach (var b in line)
        {
            if (b is not ((byte)' ' or (byte)'\t' or (byte)'\r'))
            {
                return false;
            }
        }

        return true;
    }

    private InvalidDataException Bad(int number, string what) =>
        new(string.Create(CultureInfo.InvariantCulture, $"{PathText.Escape(_journal)}: line {number} is not a journal line: {what}"));
}
