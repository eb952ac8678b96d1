using System.Buffers;
using System.Buffers.Binary;
using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// Reads the rows of a <c>COPY (…) TO STDOUT (FORMAT BINARY)</c> straight from its bytes, one whole row at a time in
/// one buffer: the counterpart of <see cref="BinaryCopyWriter"/> for a read of many rows.
/// </summary>
/// <remarks>
/// Measured in a fleet scan of 250k files matched on another machine (NativeAOT CLI, <c>perf</c>): reading the group
/// read's 485k rows value by value through <see cref="NpgsqlDataReader"/> (a call, a type check and a length check per
/// value, 15 per row) took about 0.5 s of client CPU, while the scan itself ran. The format is PostgreSQL's binary COPY
/// format: an 11-byte signature, flags, a header extension; per row a 16-bit field count and each field as a 32-bit
/// length (-1: NULL) and its bytes, big-endian; a field count of -1 at the end.
/// </remarks>
internal sealed class BinaryCopyReader : IAsyncDisposable
{
    private const int BufferSize = 64 * 1024;

    // "PGCOPY\n\377\r\n\0"
    private static ReadOnlySpan<byte> Signature => [(byte)'P', (byte)'G', (byte)'C', (byte)'O', (byte)'P', (byte)'Y', (byte)'\n', 0xFF, (byte)'\r', (byte)'\n', 0];

    private readonly NpgsqlRawCopyStream _stream;
    private byte[] _buffer;
    private int _position;
    private int _end;
    private int _rowLength;
    private int[] _starts = new int[8];
    private int[] _lengths = new int[8];
    private bool _ended;

    private BinaryCopyReader(NpgsqlRawCopyStream stream)
    {
        _stream = stream;
        _buffer = ArrayPool<byte>.Shared.Rent(BufferSize);
    }

    /// <summary>Fields of the current row.</summary>
    public int FieldCount { get; private set; }

    /// <summary>Starts <paramref name="copy"/>, a <c>COPY (…) TO STDOUT (FORMAT BINARY)</c> statement, and reads its header.</summary>
    public static async Task<BinaryCopyReader> BeginAsync(NpgsqlConnection connection, string copy, CancellationToken cancellationToken)
    {
        var stream = await connection.BeginRawBinaryCopyAsync(copy, cancellationToken).ConfigureAwait(false);
        var reader = new BinaryCopyReader(stream);
        try
        {
            await reader.EnsureAsync(Signature.Length + (2 * sizeof(int)), cancellationToken).ConfigureAwait(false);
            if (!reader._buffer.AsSpan(0, Signature.Length).SequenceEqual(Signature))
            {
                throw new InvalidDataException("The server's COPY output is not in PostgreSQL's binary format.");
            }

            var extension = BinaryPrimitives.ReadInt32BigEndian(reader._buffer.AsSpan(Signature.Length + sizeof(int)));
            if (extension < 0)
            {
                throw new InvalidDataException("The server's COPY output has a malformed header.");
            }

            reader._position = Signature.Length + (2 * sizeof(int));
            await reader.EnsureAsync(extension, cancellationToken).ConfigureAwait(false);
            reader._position += extension;
            return reader;
        }
        catch
        {
            await reader.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>Reads the next row whole into the buffer; <see langword="false"/> after the last.</summary>
    public async ValueTask<bool> ReadAsync(CancellationToken cancellationToken)
    {
        if (_ended)
        {
            return false;
        }

        _position += _rowLength;
        _rowLength = 0;
        await EnsureAsync(sizeof(short), cancellationToken).ConfigureAwait(false);
        int fields = BinaryPrimitives.ReadInt16BigEndian(_buffer.AsSpan(_position));
        if (fields == -1)
        {
            _ended = true;
            _position += sizeof(short);
            return false;
        }

        if (fields < 0)
        {
            throw new InvalidDataException($"The server's COPY output has a row of {fields} fields.");
        }

        if (fields > _starts.Length)
        {
            (_starts, _lengths) = (new int[fields], new int[fields]);
        }

        // Offsets from the row's start: the buffer may move under it while the row is read in.
        var offset = sizeof(short);
        for (var i = 0; i < fields; i++)
        {
            await EnsureAsync(offset + sizeof(int), cancellationToken).ConfigureAwait(false);
            var length = BinaryPrimitives.ReadInt32BigEndian(_buffer.AsSpan(_position + offset));
            offset += sizeof(int);
            if (length < -1)
            {
                throw new InvalidDataException($"The server's COPY output has a field of {length} bytes.");
            }

            (_starts[i], _lengths[i]) = (offset, length);
            if (length > 0)
            {
                await EnsureAsync(offset + length, cancellationToken).ConfigureAwait(false);
                offset += length;
            }
        }

        FieldCount = fields;
        _rowLength = offset;
        return true;
    }

    /// <summary>Whether the field is NULL.</summary>
    public bool IsNull(int field) => Length(field) < 0;

    /// <summary>A <c>bigint</c> field.</summary>
    public long GetInt64(int field) => BinaryPrimitives.ReadInt64BigEndian(Field(field, sizeof(long)));

    /// <summary>An <c>int</c> field.</summary>
    public int GetInt32(int field) => BinaryPrimitives.ReadInt32BigEndian(Field(field, sizeof(int)));

    /// <summary>A <c>bytea</c> field's bytes, valid until the next <see cref="ReadAsync"/>.</summary>
    public ReadOnlySpan<byte> GetBytes(int field) =>
        Length(field) is >= 0 and var length ? Field(field, length) : throw new InvalidDataException($"Field {field} of the server's COPY output is NULL.");

    /// <summary>Ends the COPY and frees the buffer; before its last row, the COPY is cancelled.</summary>
    public async ValueTask DisposeAsync()
    {
        try
        {
            if (_ended)
            {
                // After the end marker nothing more comes; reading to the stream's end lets it read the server's answer.
                while (await _stream.ReadAsync(_buffer.AsMemory(0, Math.Min(_buffer.Length, BufferSize)), CancellationToken.None).ConfigureAwait(false) > 0)
                {
                }

                await _stream.DisposeAsync().ConfigureAwait(false);
                return;
            }

            // Only on a failure's way out: that failure is the one to report, not one from cancelling on a connection
            // it may have broken.
            _ended = true;
            try
            {
                await _stream.CancelAsync().ConfigureAwait(false);
                await _stream.DisposeAsync().ConfigureAwait(false);
            }
            catch (Exception error) when (error is NpgsqlException or IOException or InvalidOperationException or ObjectDisposedException)
            {
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

    private int Length(int field) =>
        (uint)field < (uint)FieldCount ? _lengths[field] : throw new ArgumentOutOfRangeException(nameof(field), $"The row has {FieldCount} fields.");

    private ReadOnlySpan<byte> Field(int field, int length)
    {
        if (Length(field) != length)
        {
            throw new InvalidDataException($"Field {field} of the server's COPY output is {_lengths[field]} bytes, not {length}.");
        }

        return _buffer.AsSpan(_position + _starts[field], length);
    }

    /// <summary>Makes the buffer hold at least <paramref name="count"/> bytes from the current position.</summary>
    private ValueTask EnsureAsync(int count, CancellationToken cancellationToken) =>
        _end - _position >= count ? ValueTask.CompletedTask : FillAsync(count, cancellationToken);

    private async ValueTask FillAsync(int count, CancellationToken cancellationToken)
    {
        if (count > _buffer.Length)
        {
            var larger = ArrayPool<byte>.Shared.Rent(count);
            _buffer.AsSpan(_position, _end - _position).CopyTo(larger);
            ArrayPool<byte>.Shared.Return(_buffer);
            (_buffer, _end, _position) = (larger, _end - _position, 0);
        }
        else if (_position > 0)
        {
            _buffer.AsSpan(_position, _end - _position).CopyTo(_buffer);
            (_end, _position) = (_end - _position, 0);
        }

        while (_end - _position < count)
        {
            var read = await _stream.ReadAsync(_buffer.AsMemory(_end), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                throw new EndOfStreamException("The server's COPY output ended inside a row.");
            }

            _end += read;
        }
    }
}
