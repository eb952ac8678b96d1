using System.Globalization;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using System.Text.Json;
using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking.Journal;

/// <summary>
/// One run of a plan in the journal: its <c>run</c> line (written and synced by <see cref="Start"/>, before the first
/// action), then per action its <c>begun</c> lines (synced, right before the step that changes the name) and its
/// outcome (flushed), and the <c>interrupted</c> line of a cancelled run. The lines are those of <c>docs/journal.md</c>.
/// </summary>
internal sealed class JournalRun
{
    private readonly ActionJournal _journal;
    private readonly MemoryStream _buffer = new();
    private readonly Utf8JsonWriter _json;
    private readonly object _gate = new();
    private readonly ConditionalWeakTable<object, StrongBox<JournalParent>> _folders = new();
    private int _seq;

    private JournalRun(ActionJournal journal, string id)
    {
        _journal = journal;
        Id = id;
        _json = new Utf8JsonWriter(_buffer);
    }

    /// <summary>32 lowercase hex digits, new per run.</summary>
    public string Id { get; }

    /// <summary>The seq of the last <c>begun</c> line of the action in progress, if it wrote one.</summary>
    public int? CurrentSeq { get; private set; }

    /// <summary>Writes the run line and syncs it; throws <see cref="IOException"/> when the journal cannot be written.</summary>
    public static JournalRun Start(ActionJournal journal, DuplicateActionKind kind, IEnumerable<ScanRoot> roots)
    {
        var id = new byte[16];
#if NET
        RandomNumberGenerator.Fill(id);
#else
        using (var random = RandomNumberGenerator.Create())
        {
            random.GetBytes(id);
        }
#endif
        var run = new JournalRun(journal, string.Concat(id.Select(b => b.ToString("x2", CultureInfo.InvariantCulture))));
        lock (run._gate)
        {
            var json = run.StartLine("run");
            json.WriteString("kind", CamelCase(kind.ToString()));
            json.WriteStartArray("roots");
            foreach (var root in roots.Distinct())
            {
                json.WriteStartObject();
                JournalPaths.Write(json, "path", root.Path.ToString());
                json.WriteNumber("device", root.Identity.Device);
                json.WriteNumber("inode", root.Identity.FileId);
                if (root.FolderIdentity != default)
                {
                    json.WriteBoolean("file", true);
                    json.WriteNumber("folderDevice", root.FolderIdentity.Device);
                    json.WriteNumber("folderInode", root.FolderIdentity.FileId);
                }

                json.WriteEndObject();
            }

            json.WriteEndArray();
            run.EndLine(durable: true);
        }

        return run;
    }

    /// <summary>The modification time the action in progress left its folder with, once its step was made (see <see cref="StepMade"/>).</summary>
    public long? CurrentParentMtimeNs { get; private set; }

    /// <summary>A new action starts: no begun line yet.</summary>
    public void StartAction() => (CurrentSeq, CurrentParentMtimeNs) = (null, null);

    /// <summary>
    /// The times the journal last recorded for the open <paramref name="folder"/> (a handle kept open across the run's
    /// actions), or <see langword="null"/> when none of this run's steps was made in it through that handle.
    /// </summary>
    public JournalParent? Known(object folder) => _folders.TryGetValue(folder, out var known) ? known.Value : null;

    /// <summary>
    /// The folder as the step just made left it: its modification time goes on the action's outcome line, and its times
    /// become the <c>parent</c> of the next step made through the same open <paramref name="folder"/> (no second status call).
    /// </summary>
    public void StepMade(object folder, JournalParent after)
    {
        CurrentParentMtimeNs = after.MtimeNs;
#if NET
        _folders.AddOrUpdate(folder, new StrongBox<JournalParent>(after));
#else
        _folders.Remove(folder);
        _folders.Add(folder, new StrongBox<JournalParent>(after));
#endif
    }

    /// <summary>Writes and syncs the begun line; an action whose line cannot be written stops there, unchanged.</summary>
    public void Begun(BegunEntry entry)
    {
        lock (_gate)
        {
            var seq = ++_seq;
            var json = StartLine("begun");
            json.WriteNumber("seq", seq);
            json.WriteString("kind", entry.Kind);
            JournalPaths.Write(json, "path", entry.Path);
            if (entry.Kept is not null)
            {
                JournalPaths.Write(json, "kept", entry.Kept);
            }

            if (entry.KeptFile is { } kept)
            {
                WriteFile(json, "keptFile", kept);
            }

            WriteBefore(json, entry.Before);
            if (entry.After is { } after)
            {
                WriteFile(json, "after", after);
            }

            if (entry.Target is not null)
            {
                JournalPaths.Write(json, "target", entry.Target);
            }

            if (entry.Parent is { } parent)
            {
                json.WriteStartObject("parent");
                json.WriteNumber("device", parent.Device);
                json.WriteNumber("inode", parent.Inode);
                json.WriteNumber("atimeNs", parent.AtimeNs);
                json.WriteNumber("mtimeNs", parent.MtimeNs);
                json.WriteEndObject();
            }

            if (entry.Trash is { } trash)
            {
                json.WriteStartObject("trash");
                JournalPaths.Write(json, "root", trash.Root);
                JournalPaths.Write(json, "files", trash.Files);
                JournalPaths.Write(json, "info", trash.Info);
                json.WriteEndObject();
            }

            try
            {
                EndLine(durable: true);
            }
            catch (Exception ex) when (ex is IOException or ObjectDisposedException)
            {
                throw ActionStoppedException.Fail($"cannot write the journal {_journal.Path}: {ex.Message}; nothing done");
            }

            CurrentSeq = seq;
        }
    }

    /// <summary>
    /// Windows and macOS: where the system trash put the file of the action's last <c>begun</c> line (the Recycle Bin's
    /// <c>$R…</c> file and its <c>$I…</c> file, or the path in the Trash), synced after the move. A line that cannot be
    /// written leaves the move made; undo then says to restore the file by hand.
    /// </summary>
    public void Trashed(string location, string? info)
    {
        lock (_gate)
        {
            if (CurrentSeq is not { } seq)
            {
                return;
            }

            var json = StartLine("trashed");
            json.WriteNumber("seq", seq);
            JournalPaths.Write(json, "location", location);
            if (info is not null)
            {
                JournalPaths.Write(json, "info", info);
            }

            try
            {
                EndLine(durable: true);
            }
            catch (Exception ex) when (ex is IOException or ObjectDisposedException)
            {
                // The file is in the trash already; without the line undo leaves it there, with the reason.
            }
        }
    }

    /// <summary>The action's outcome line (flushed, not synced: undo inspects the files, never trusts these).</summary>
    public void Outcome(DuplicateActionOutcome outcome)
    {
        lock (_gate)
        {
            var action = outcome.Action;
            var json = StartLine(outcome.Status.ToString().ToLowerInvariant());
            if (CurrentSeq is { } seq)
            {
                json.WriteNumber("seq", seq);
            }

            json.WriteString("kind", CamelCase(action.Kind.ToString()));
            JournalPaths.Write(json, "path", action.Path.ToString());
            JournalPaths.Write(json, "kept", action.Kept.Path.ToString());
            json.WriteNumber("bytes", outcome.Status == DuplicateActionStatus.Done ? action.ReclaimableBytes : 0);
            if (CurrentSeq is not null && CurrentParentMtimeNs is { } parentMtime)
            {
                json.WriteNumber("parentMtimeNs", parentMtime);
            }
            if (outcome.Reason is not null)
            {
                json.WriteString("reason", outcome.Reason);
            }

            EndQuietly();
        }
    }

    /// <summary>The one line of a cancelled run, in place of a line per action not started.</summary>
    public void Interrupted(int done, int notStarted)
    {
        lock (_gate)
        {
            var json = StartLine("interrupted");
            json.WriteNumber("done", done);
            json.WriteNumber("notStarted", notStarted);
            json.WriteNumber("bytes", 0);
            json.WriteString("reason", string.Create(CultureInfo.InvariantCulture, $"interrupted: {done} done, {notStarted} not started"));
            EndQuietly();
        }
    }

    /// <summary>camelCase of an enum name, as the report writes kinds (<c>HardLink</c> → <c>hardLink</c>).</summary>
    internal static string CamelCase(string name) => JsonNamingPolicy.CamelCase.ConvertName(name);

    private static void WriteFile(Utf8JsonWriter json, string name, JournalFile file)
    {
        json.WriteStartObject(name);
        json.WriteNumber("device", file.Device);
        json.WriteNumber("inode", file.Inode);
        json.WriteNumber("size", file.Size);
        json.WriteNumber("mtimeNs", file.MtimeNs);
        json.WriteEndObject();
    }

    private static void WriteBefore(Utf8JsonWriter json, JournalBefore before)
    {
        json.WriteStartObject("before");
        json.WriteNumber("device", before.Device);
        json.WriteNumber("inode", before.Inode);
        json.WriteNumber("size", before.Size);
        if (before.Mode is { } mode)
        {
            json.WriteNumber("mode", mode);
        }

        if (before.Uid is { } uid)
        {
            json.WriteNumber("uid", uid);
        }

        if (before.Gid is { } gid)
        {
            json.WriteNumber("gid", gid);
        }

        if (before.AtimeNs is { } atime)
        {
            json.WriteNumber("atimeNs", atime);
        }

        json.WriteNumber("mtimeNs", before.MtimeNs);
        if (before.Flags != 0)
        {
            json.WriteNumber("flags", before.Flags);
        }

        if (before.Xattrs is { Count: > 0 } xattrs)
        {
            json.WriteStartObject("xattrs");
            foreach (var xattr in xattrs)
            {
                json.WriteBase64String(xattr.Key, xattr.Value);
            }

            json.WriteEndObject();
        }

        json.WriteEndObject();
    }

    private Utf8JsonWriter StartLine(string status)
    {
        _buffer.SetLength(0);
        _json.Reset(_buffer);
        _json.WriteStartObject();
        _json.WriteNumber("version", ActionJournal.FormatVersion);
        _json.WriteString("time", DateTime.UtcNow.ToString("O", CultureInfo.InvariantCulture));
        _json.WriteString("status", status);
        _json.WriteString("run", Id);
        return _json;
    }

    private void EndLine(bool durable)
    {
        _json.WriteEndObject();
        _json.Flush();
        _buffer.WriteByte((byte)'\n');
        _journal.Append(_buffer.GetBuffer(), (int)_buffer.Length, durable);
    }

    /// <summary>Outcome lines are a record for people: one that cannot be written does not stop the run.</summary>
    private void EndQuietly()
    {
        try
        {
            EndLine(durable: false);
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException)
        {
            // The begun lines are what undo needs; the next one fails its action if the journal stays unwritable.
        }
    }
}
