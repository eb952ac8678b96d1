using System.Globalization;
using System.Text.Json;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// Appends undo's <c>undone</c> lines to the journal, each synced to disk before undo's own step that changes the
/// name: a later undo (after a kill) then knows the identity the name was given and says "already restored".
/// </summary>
internal sealed class UndoJournalWriter : IDisposable
{
    private readonly FileStream _stream;
    private bool _lineOpen;

    /// <summary>
    /// Opens the journal to append (<c>O_APPEND</c>: each line lands at the end whoever else appends) and takes its
    /// lock: one undo at a time per journal. Throws <see cref="InvalidOperationException"/> when another holds it.
    /// </summary>
    public UndoJournalWriter(string journal, bool endsWithNewline)
    {
        _stream = OperatingSystem.IsLinux() ? OpenLocked(journal) : new FileStream(journal, FileMode.Append, FileAccess.Write, FileShare.ReadWrite, 1);
        _lineOpen = !endsWithNewline; // a torn last line: ours starts on a line of its own
    }

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static FileStream OpenLocked(string journal)
    {
        var fd = Journal.JournalTrust.OpenTrusted(journal, Interop.Libc.O_WRONLY | Interop.Libc.O_APPEND);
        var handle = new Microsoft.Win32.SafeHandles.SafeFileHandle((nint)fd, ownsHandle: true);
        if (!LockWithin(fd, TimeSpan.FromSeconds(2)))
        {
            handle.Dispose();
            throw new InvalidOperationException($"another dedup undo is running on the journal {journal}; nothing was changed (run it again once that one has finished)");
        }

        return new FileStream(handle, FileAccess.Write, 1);
    }

    // An OFD lock lasts while any descriptor shares the open file description: a process forked a moment before the
    // last undo closed the journal holds it until its exec. So a held lock is tried again briefly before it counts as
    // another undo running.
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static bool LockWithin(int fd, TimeSpan wait)
    {
        var deadline = DateTime.UtcNow + wait;
        while (Interop.Libc.TryLockWhole(fd) != 0)
        {
            if (DateTime.UtcNow >= deadline)
            {
                return false;
            }

            Thread.Sleep(50);
        }

        return true;
    }

    public void Undone(JournalStep step, ulong device, ulong inode) => Write("undone", step.Run, json =>
    {
        json.WriteNumber("seq", step.Seq);
        json.WriteStartObject("restored");
        json.WriteNumber("device", device);
        json.WriteNumber("inode", inode);
        json.WriteEndObject();
    });

    /// <summary>
    /// The modification time undo left a folder with (the folder named by the identity its steps' <c>parent</c> gives), and
    /// whether it kept the times someone else gave the folder: what a later undo compares the folder with.
    /// </summary>
    public void FolderTimes(string run, (ulong Device, ulong Inode) folder, long mtimeNs, bool kept, bool restored) => Write("folderTimes", run, json =>
    {
        json.WriteStartObject("parent");
        json.WriteNumber("device", folder.Device);
        json.WriteNumber("inode", folder.Inode);
        json.WriteEndObject();
        json.WriteNumber("mtimeNs", mtimeNs);
        if (kept || restored)
        {
            json.WriteBoolean(kept ? "kept" : "restored", true);
        }
    });

    private void Write(string status, string run, Action<Utf8JsonWriter> fields)
    {
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer))
        {
            json.WriteStartObject();
            json.WriteNumber("version", 2);
            json.WriteString("time", DateTime.UtcNow.ToString("O", CultureInfo.InvariantCulture));
            json.WriteString("status", status);
            json.WriteString("run", run);
            fields(json);
            json.WriteEndObject();
        }

        if (_lineOpen)
        {
            _stream.WriteByte((byte)'\n');
            _lineOpen = false;
        }

        buffer.WriteByte((byte)'\n');
        buffer.Position = 0;
        buffer.CopyTo(_stream);
        _stream.Flush(flushToDisk: true);
    }

    public void Dispose() => _stream.Dispose();
}
