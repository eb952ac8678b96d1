namespace Dedup.Core.Media;

/// <summary>
/// Walks the chunks of a RIFF file ("RIFF", 32-bit little-endian size, form type, then chunks of a
/// four-character id, a 32-bit little-endian size and the data, padded to an even length — the pad byte is
/// not counted in the size). The walk ends at the RIFF size when it is plausible, else at the end of file;
/// bytes after the RIFF form (e.g. an appended ID3 tag) are not part of it. A struct cursor rather than a
/// callback, so a locator's state stays in locals (no closure per file).
/// </summary>
internal struct RiffChunks
{
    private readonly MediaReader _reader;
    private readonly long _end;
    private long _position;

    /// <summary>Starts a walk after the 12-byte RIFF header.</summary>
    public RiffChunks(MediaReader reader)
    {
        _reader = reader;
        if (!reader.TryReadUInt32LE(4, out var riffSize) || riffSize < 4)
        {
            _end = -1;
            return;
        }

        _end = Math.Min(8 + (long)riffSize, reader.Length);
        _position = 12;
    }

    /// <summary>Whether the walk reached the end of the form cleanly (valid only once <see cref="TryNext"/> returned false).</summary>
    public bool Completed { get; private set; }

    public static bool IsRiff(ReadOnlySpan<byte> header, ReadOnlySpan<byte> form)
        => header.Length >= 12 && header[..4].SequenceEqual("RIFF"u8) && header[8..12].SequenceEqual(form);

    /// <summary>Moves to the next chunk; <see langword="false"/> at the end or when the structure is broken (see <see cref="Completed"/>).</summary>
    public bool TryNext(Span<byte> id, out long dataOffset, out long dataLength)
    {
        dataOffset = dataLength = 0;
        if (_end < 0 || _position >= _end)
        {
            Completed = _end >= 0;
            return false;
        }

        if (!_reader.Step())
        {
            return false;
        }

        if (_end - _position < 8)
        {
            // A few stray bytes at the end of the form: tolerated only when they are zero padding.
            Completed = _end - _position == 1 && _reader.TryReadByte(_position, out var pad) && pad == 0;
            return false;
        }

        if (!_reader.TryRead(_position, id[..4]) || !_reader.TryReadUInt32LE(_position + 4, out var size) || !IsChunkId(id[..4]))
        {
            return false;
        }

        var data = _position + 8;
        if (size > _end - data)
        {
            return false;
        }

        dataOffset = data;
        dataLength = size;
        _position = data + size + (size & 1);
        return true;
    }

    private static bool IsChunkId(ReadOnlySpan<byte> id)
    {
        foreach (var c in id)
        {
            if (c is < 0x20 or > 0x7E)
            {
                return false;
            }
        }

        return true;
    }
}
