using System.Buffers;
using System.Buffers.Binary;
using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// A binary <c>COPY … FROM STDIN</c> whose rows are encoded here, into one buffer sent in large writes, instead of
/// value by value through <see cref="NpgsqlBinaryImporter"/>.
/// </summary>
/// <remarks>
/// Measured in a scan of 250,841 files (NativeAOT CLI, <c>perf</c>): the importer's per-value writes (an async call,
/// a type binding and a length check for each of seven columns) took about 1.5 s of client CPU for the files' and the
/// digests' COPYs, more than the server spent storing the rows. The format is PostgreSQL's binary COPY format
/// (signature, flags, header extension; per row a field count and each field's length and bytes, big-endian; a -1
/// field count at the end); only <c>bigint</c>, <c>int</c> and <c>bytea</c> fields are written.
/// </remarks>
internal sealed class BinaryCopyWriter : IAsyncDisposable
{
    private const int BufferSize = 64 * 1024;

    // "PGCOPY\n\377\r\n\0", flags (no OIDs), header extension length.
    private static ReadOnlySpan<byte> Header => [(byte)'P', (byte)'G', (byte)'C', (byte)'O', (byte)'P', (byte)'Y', (byte)'\n', 0xFF, (byte)'\r', (byte)'\n', 0, 0, 0, 0, 0, 0, 0, 0, 0];

    private readonly NpgsqlRawCopyStream _stream;
    private byte[] _buffer;
    private int _used;
    private bool _completed;

    private BinaryCopyWriter(NpgsqlRawCopyStream stream)
    {
        _stream = stream;
        _buffer = ArrayPool<byte>.Shared.Rent(BufferSize);
        Header.CopyTo(_buffer);
        _used = Header.Length;
    }

    /// <summary>Rows written so far.</summary>
    public ulong Rows { get; private set; }

    /// <summary>Starts <paramref name="copy"/>, a <c>COPY … FROM STDIN (FORMAT BINARY)</c> statement.</summary>
    public static async Task<BinaryCopyWriter> BeginAsync(NpgsqlConnection connection, string copy, CancellationToken cancellationToken)
    {
        var stream = await connection.BeginRawBinaryCopyAsync(copy, cancellationToken).ConfigureAwait(false);
        return new BinaryCopyWriter(stream);
    }

    /// <summary>
    /// Starts a row of <paramref name="fields"/> fields whose encoding (lengths included) takes at most
    /// <paramref name="maxBytes"/> bytes after the field count; sends the buffer first when the row would not fit.
    /// </summary>
    public ValueTask StartRowAsync(short fields, int maxBytes, CancellationToken cancellationToken)
    {
        int needed = sizeof(short) + maxBytes;
        if (_used + needed <= _buffer.Length)
        {
            StartRow(fields);
            return ValueTask.CompletedTask;
        }

        return FlushThenStartAsync(fields, needed, cancellationToken);
    }

    /// <summary>A <c>bigint</c> field.</summary>
    public void WriteInt64(long value)
    {
        var span = _buffer.AsSpan(_used, sizeof(int) + sizeof(long));
        BinaryPrimitives.WriteInt32BigEndian(span, sizeof(long));
        BinaryPrimitives.WriteInt64BigEndian(span[sizeof(int)..], value);
        _used += span.Length;
    }

    /// <summary>An <c>int</c> field.</summary>
    public void WriteInt32(int value)
    {
        var span = _buffer.AsSpan(_used, sizeof(int) + sizeof(int));
        BinaryPrimitives.WriteInt32BigEndian(span, sizeof(int));
        BinaryPrimitives.WriteInt32BigEndian(span[sizeof(int)..], value);
        _used += span.Length;
    }

    /// <summary>A <c>bytea</c> field.</summary>
    public void WriteBytes(ReadOnlySpan<byte> value)
    {
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_used), value.Length);
        value.CopyTo(_buffer.AsSpan(_used + sizeof(int)));
        _used += sizeof(int) + value.Length;
    }

    /// <summary>Ends the COPY: the server stores the rows (within the caller's transaction).</summary>
    public async Task<ulong> CompleteAsync(CancellationToken cancellationToken)
    {
        if (_used + sizeof(short) > _buffer.Length)
        {
            await FlushAsync(cancellationToken).ConfigureAwait(false);
        }

        BinaryPrimitives.WriteInt16BigEndian(_buffer.AsSpan(_used), -1);
        _used += sizeof(short);
        await FlushAsync(cancellationToken).ConfigureAwait(false);
        _completed = true;
        // Disposing the stream ends the COPY and reads the server's answer (its error, if the rows were refused).
        await _stream.DisposeAsync().ConfigureAwait(false);
        return Rows;
    }

    /// <summary>Cancels the COPY unless it was completed (the server discards its rows), and frees the buffer.</summary>
    public async ValueTask DisposeAsync()
    {
        try
        {
            if (!_completed)
            {
                // Only on a failure's way out (the rows could not all be made or sent): that failure is the one to
                // report, not a second one from cancelling on a connection it may have broken.
                _completed = true;
                try
                {
                    await _stream.CancelAsync().ConfigureAwait(false);
                    await _stream.DisposeAsync().ConfigureAwait(false);
                }
                catch (Exception error) when (error is NpgsqlException or IOException or InvalidOperationException or ObjectDisposedException)
                {
                }
            }
        }
        finally
        {
            var buffer = _buffer;
            _buffer = [];
            if (buffer.Length > 0)
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }
    }

    private void StartRow(short fields)
    {
        BinaryPrimitives.WriteInt16BigEndian(_buffer.AsSpan(_used), fields);
        _used += sizeof(short);
        Rows++;
    }

    private async ValueTask FlushThenStartAsync(short fields, int needed, CancellationToken cancellationToken)
    {
        await FlushAsync(cancellationToken).ConfigureAwait(false);
        if (needed > _buffer.Length)
        {
            // A row larger than the buffer (a very long path): a buffer that holds it.
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = [];
            _buffer = ArrayPool<byte>.Shared.Rent(needed);
        }

        StartRow(fields);
    }

    private async ValueTask FlushAsync(CancellationToken cancellationToken)
    {
        if (_used > 0)
        {
            await _stream.WriteAsync(_buffer.AsMemory(0, _used), cancellationToken).ConfigureAwait(false);
            _used = 0;
        }
    }
}
