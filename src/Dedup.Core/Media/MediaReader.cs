using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using Dedup.Core.IO;

namespace Dedup.Core.Media;

/// <summary>
/// Positional, buffered reads for the locators, over an open file (through the scan's
/// <see cref="FileReader"/>, which counts the bytes) or over memory. Every read and every
/// <see cref="Step"/> is charged to a budget; once it is spent all reads fail, so a malformed file costs
/// bounded time and memory. Reads never throw for offsets out of range: they return <see langword="false"/>.
/// </summary>
internal sealed class MediaReader : IDisposable
{
    public const int BufferSize = 32 * 1024;

    /// <summary>Refill size for header reads, which hop between boxes/chunks/segments (scans refill the whole buffer).</summary>
    public const int PointReadSize = 32 * 1024;

    /// <summary>
    /// Largest refill. A locator walking forward chunk by chunk (PNG's 8 KiB IDAT chunks) reads the whole file
    /// through the buffer; doubling the refill on each forward step cut the reads of a scan of eight 16 MB PNGs (four pairs)
    /// from 5,003 to 1,323 (strace -c, payload reads included).
    /// </summary>
    public const int MaxSequentialReadSize = 512 * 1024;

    private readonly FileReader? _reader;
    private readonly OpenedFile _file;
    private readonly ReadOnlyMemory<byte> _memory;
    private byte[] _buffer;
    private int _fillSize = PointReadSize;
    private long _bufferOffset;
    private int _bufferCount;
    private long _bytesLeft;
    private long _stepsLeft;

    public MediaReader(FileReader reader, in OpenedFile file, long length, MediaOptions options)
        : this(length, options)
    {
        _reader = reader;
        _file = file;
    }

    public MediaReader(ReadOnlyMemory<byte> content, MediaOptions options)
        : this(content.Length, options)
    {
        _memory = content;
    }

    private MediaReader(long length, MediaOptions options)
    {
        Length = length;
        Options = options;
        _buffer = []; // rented at the first buffered read: a file that is no media never needs one
        _bytesLeft = (2 * length) + options.ExtraParseBytes;
        _stepsLeft = options.MaxSteps;
    }

    public long Length { get; }

    public MediaOptions Options { get; }

    /// <summary>Whether a budget ran out (the file is then treated as unknown).</summary>
    public bool Exhausted => _bytesLeft < 0 || _stepsLeft < 0;

    /// <summary>Charges one parser step; <see langword="false"/> when the step budget is spent.</summary>
    public bool Step() => --_stepsLeft >= 0;

    /// <summary>Whether [offset, offset + length) lies inside the file.</summary>
    public bool Contains(long offset, long length) => ByteRange.Fits(offset, length, Length);

    /// <summary>Appends a payload range within <see cref="MediaOptions.MaxRanges"/> (see <see cref="ByteRange.TryAdd"/>).</summary>
    public bool TryAddRange(List<ByteRange> ranges, long offset, long length) => ByteRange.TryAdd(ranges, Options.MaxRanges, offset, length);

    /// <summary>Reads exactly <paramref name="destination"/>.Length bytes at <paramref name="offset"/>.</summary>
    public bool TryRead(long offset, Span<byte> destination)
    {
        if (!Contains(offset, destination.Length))
        {
            return false;
        }

        if (offset >= _bufferOffset && offset + destination.Length <= _bufferOffset + _bufferCount)
        {
            _buffer.AsSpan((int)(offset - _bufferOffset), destination.Length).CopyTo(destination);
            return true;
        }

        if (destination.Length > BufferSize / 2)
        {
            return ReadDirect(offset, destination);
        }

        // Forward steps just past the buffered bytes mean a sequential walk: grow the refill; a jump resets it.
        var bufferEnd = _bufferOffset + _bufferCount;
        _fillSize = _bufferCount > 0 && offset >= _bufferOffset && offset <= bufferEnd + BufferSize
            ? Math.Min(_fillSize * 2, MaxSequentialReadSize)
            : PointReadSize;
        return Fill(offset, destination.Length, _fillSize) && TryRead(offset, destination);
    }

    /// <summary>
    /// Reads exactly <paramref name="destination"/> without filling the buffer: for the signature check, so that a
    /// file that is no media costs a read of its first bytes, not of a whole refill (a scan in media mode checks
    /// every file of a unique size).
    /// </summary>
    public bool TryReadUnbuffered(long offset, Span<byte> destination)
        => Contains(offset, destination.Length) && ReadDirect(offset, destination);

    public bool TryReadByte(long offset, out byte value) => TryReadInteger(offset, bigEndian: true, out value);

    public bool TryReadUInt16BE(long offset, out ushort value) => TryReadInteger(offset, bigEndian: true, out value);

    public bool TryReadUInt32BE(long offset, out uint value) => TryReadInteger(offset, bigEndian: true, out value);

    public bool TryReadUInt32LE(long offset, out uint value) => TryReadInteger(offset, bigEndian: false, out value);

    public bool TryReadUInt64BE(long offset, out ulong value) => TryReadInteger(offset, bigEndian: true, out value);

    /// <summary>Whether the bytes at <paramref name="offset"/> equal <paramref name="expected"/>.</summary>
    public bool Matches(long offset, ReadOnlySpan<byte> expected)
    {
        Span<byte> b = stackalloc byte[expected.Length];
        return TryRead(offset, b) && b.SequenceEqual(expected);
    }

    private bool Fill(long offset, int minimum, int size)
    {
        var count = (int)Math.Min(Math.Max(minimum, size), Length - offset);
        if (count < minimum)
        {
            return false;
        }

        _bufferCount = 0;
        if (count > _buffer.Length)
        {
            if (_buffer.Length > 0)
            {
                Options.Buffers.Return(_buffer);
            }

            _buffer = Options.Buffers.Rent(Math.Max(count, BufferSize));
        }

        if (!ReadDirect(offset, _buffer.AsSpan(0, count)))
        {
            return false;
        }

        _bufferOffset = offset;
        _bufferCount = count;
        return true;
    }

    private bool ReadDirect(long offset, Span<byte> destination)
    {
        _bytesLeft -= destination.Length;
        if (_bytesLeft < 0 || !Step())
        {
            return false;
        }

        if (_reader is null)
        {
            _memory.Span.Slice((int)offset, destination.Length).CopyTo(destination);
            return true;
        }

        return _reader.ReadFull(_file, destination, offset) == destination.Length;
    }

    /// <summary>Returns the buffer to the pool.</summary>
    public void Dispose()
    {
        var buffer = _buffer;
        _buffer = [];
        _bufferCount = 0;
        if (buffer.Length > 0)
        {
            Options.Buffers.Return(buffer);
        }
    }

#if NET
    /// <summary>The format-named readers above, in one place: <typeparamref name="T"/>'s size in bytes, decoded in the given byte order.</summary>
    private bool TryReadInteger<T>(long offset, bool bigEndian, out T value)
        where T : unmanaged, IBinaryInteger<T>
    {
        Span<byte> bytes = stackalloc byte[Unsafe.SizeOf<T>()];
        bytes.Clear();
        var ok = TryRead(offset, bytes);
        value = bigEndian ? T.ReadBigEndian(bytes, isUnsigned: true) : T.ReadLittleEndian(bytes, isUnsigned: true);
        return ok;
    }
#else
    // netstandard2.0 has no generic math: one overload per width the readers above use.
    private bool TryReadInteger(long offset, bool bigEndian, out byte value)
    {
        Span<byte> bytes = stackalloc byte[1];
        bytes.Clear();
        var ok = TryRead(offset, bytes);
        value = bytes[0];
        return ok;
    }

    private bool TryReadInteger(long offset, bool bigEndian, out ushort value)
    {
        Span<byte> bytes = stackalloc byte[2];
        bytes.Clear();
        var ok = TryRead(offset, bytes);
        value = bigEndian ? BinaryPrimitives.ReadUInt16BigEndian(bytes) : BinaryPrimitives.ReadUInt16LittleEndian(bytes);
        return ok;
    }

    private bool TryReadInteger(long offset, bool bigEndian, out uint value)
    {
        Span<byte> bytes = stackalloc byte[4];
        bytes.Clear();
        var ok = TryRead(offset, bytes);
        value = bigEndian ? BinaryPrimitives.ReadUInt32BigEndian(bytes) : BinaryPrimitives.ReadUInt32LittleEndian(bytes);
        return ok;
    }

    private bool TryReadInteger(long offset, bool bigEndian, out ulong value)
    {
        Span<byte> bytes = stackalloc byte[8];
        bytes.Clear();
        var ok = TryRead(offset, bytes);
        value = bigEndian ? BinaryPrimitives.ReadUInt64BigEndian(bytes) : BinaryPrimitives.ReadUInt64LittleEndian(bytes);
        return ok;
    }
#endif
}
