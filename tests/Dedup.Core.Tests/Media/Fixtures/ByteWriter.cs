using System.Buffers.Binary;
using System.Text;

namespace Dedup.Core.Tests.Media.Fixtures;

/// <summary>Appends big/little-endian fields to a growing byte array (fixture files are built byte by byte).</summary>
internal sealed class ByteWriter
{
    private readonly List<byte> _bytes = [];

    public int Position => _bytes.Count;

    public ByteWriter Bytes(ReadOnlySpan<byte> bytes)
    {
        foreach (var b in bytes)
        {
            _bytes.Add(b);
        }

        return this;
    }

    public ByteWriter Ascii(string text) => Bytes(Encoding.ASCII.GetBytes(text));

    public ByteWriter U8(int value)
    {
        _bytes.Add((byte)value);
        return this;
    }

    public ByteWriter Zeros(int count) => Bytes(new byte[count]);

    public ByteWriter U16BE(int value) => Field(2, b => BinaryPrimitives.WriteUInt16BigEndian(b, (ushort)value));

    public ByteWriter U24BE(int value) => U8(value >> 16).U8(value >> 8).U8(value);

    public ByteWriter U32BE(long value) => Field(4, b => BinaryPrimitives.WriteUInt32BigEndian(b, (uint)value));

    public ByteWriter U64BE(long value) => Field(8, b => BinaryPrimitives.WriteUInt64BigEndian(b, (ulong)value));

    public ByteWriter U16LE(int value) => Field(2, b => BinaryPrimitives.WriteUInt16LittleEndian(b, (ushort)value));

    public ByteWriter U24LE(int value) => U8(value).U8(value >> 8).U8(value >> 16);

    public ByteWriter U32LE(long value) => Field(4, b => BinaryPrimitives.WriteUInt32LittleEndian(b, (uint)value));

    public byte[] ToArray() => [.. _bytes];

    public static byte[] Concat(params byte[][] parts) => parts.SelectMany(p => p).ToArray();

    public static byte[] Random(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    private ByteWriter Field(int size, Action<byte[]> write)
    {
        var b = new byte[size];
        write(b);
        return Bytes(b);
    }
}

/// <summary>CRC-32 (ISO-HDLC, as PNG uses), table-driven.</summary>
internal static class Crc32
{
    private static readonly uint[] Table = Enumerable.Range(0, 256).Select(n =>
    {
        var c = (uint)n;
        for (var k = 0; k < 8; k++)
        {
            c = (c & 1) != 0 ? 0xEDB88320 ^ (c >> 1) : c >> 1;
        }

        return c;
    }).ToArray();

    public static uint Compute(ReadOnlySpan<byte> data)
    {
        var crc = 0xFFFFFFFFu;
        foreach (var b in data)
        {
            crc = Table[(crc ^ b) & 0xFF] ^ (crc >> 8);
        }

        return crc ^ 0xFFFFFFFFu;
    }
}

/// <summary>A fixture format: a base file, variants with the same payload, and a file with other content.</summary>
internal interface IMediaFixture
{
    Dedup.Core.MediaFormat Format { get; }

    byte[] Create(int seed);

    IEnumerable<(string Name, byte[] Bytes)> Variants(int seed);
}
