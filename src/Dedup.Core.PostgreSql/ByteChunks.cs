namespace Dedup.Core.PostgreSql;

/// <summary>
/// Byte strings read into shared chunks, each a slice of one (a group read's paths, a machine's stored digests): a
/// fleet's read sends a path for nearly every file of the other machines, and an array each was a tenth of what the
/// scan allocated after its compare stage, all of it kept to the end (the garbage collector copied and marked it again
/// and again).
/// </summary>
internal sealed class ByteChunks
{
    private const int ChunkSize = 64 * 1024;
    private byte[] _chunk = [];
    private int _used;

    /// <summary>A copy of <paramref name="bytes"/> (its own array past a quarter of a chunk).</summary>
    public ReadOnlyMemory<byte> Add(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length > ChunkSize / 4)
        {
            return bytes.ToArray();
        }

        if (_chunk.Length - _used < bytes.Length)
        {
            (_chunk, _used) = (new byte[ChunkSize], 0);
        }

        bytes.CopyTo(_chunk.AsSpan(_used));
        var copy = new ReadOnlyMemory<byte>(_chunk, _used, bytes.Length);
        _used += bytes.Length;
        return copy;
    }
}
