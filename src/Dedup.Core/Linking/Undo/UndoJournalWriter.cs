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

    public UndoJournalWriter(string journal, bool endsWithNewline)
    {
        _stream = new FileStream(journal, FileMode.Append, FileAccess.Write, FileShare.ReadWrite, 1);
        _lineOpen = !endsWithNewline; // a torn last line: ours starts on a line of its own
    }

    public void Undone(JournalStep step, ulong device, ulong inode)
    {
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer))
        {
            json.WriteStartObject();
            json.WriteNumber("version", 2);
            json.WriteString("time", DateTime.UtcNow.ToString("O", CultureInfo.InvariantCulture));
            json.WriteString("status", "undone");
            json.WriteString("run", step.Run);
            json.WriteNumber("seq", step.Seq);
            json.WriteStartObject("restored");
            json.WriteNumber("device", device);
            json.WriteNumber("inode", inode);
            json.WriteEndObject();
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
