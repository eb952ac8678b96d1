namespace Dedup.Core.Media;

/// <summary>What one PNG chunk header means for the walk.</summary>
internal enum PngChunkStep
{
    /// <summary>Go on with the chunk at the next offset.</summary>
    Next,

    /// <summary>IEND after image data: the payload is complete.</summary>
    End,

    /// <summary>Malformed or over a limit: not located.</summary>
    Invalid,
}

/// <summary>
/// The payload rules of <see cref="PngLocator"/> applied to one chunk header at a time, shared by the locator (which
/// reads headers itself) and <see cref="PngChunkStream"/> (which sees them in bytes a scan reads anyway).
/// </summary>
internal struct PngChunks
{
    public const int HeaderSize = 8;

    private bool _started;
    private bool _sawData;

    public static ReadOnlySpan<byte> Signature => [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A];

    /// <summary>Applies the chunk whose 8-byte header (length, type) is at <paramref name="position"/>; sets the next header's offset.</summary>
    public PngChunkStep Visit(ReadOnlySpan<byte> header, long position, long fileLength, int maxRanges, List<ByteRange> ranges, out long next)
    {
        next = 0;
        var length = System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(header);
        var type = header.Slice(4, 4);
        var data = position + HeaderSize;
        if (length > int.MaxValue || !IsChunkType(type) || !ByteRange.Fits(data, length + 4L, fileLength))
        {
            return PngChunkStep.Invalid;
        }

        if (!_started && !type.SequenceEqual("IHDR"u8))
        {
            return PngChunkStep.Invalid;
        }

        _started = true;
        if (type.SequenceEqual("IEND"u8))
        {
            return _sawData ? PngChunkStep.End : PngChunkStep.Invalid;
        }

        if (type.SequenceEqual("IDAT"u8))
        {
            _sawData = true;
            if (!ByteRange.TryAdd(ranges, maxRanges, data, length))
            {
                return PngChunkStep.Invalid;
            }
        }
        else if (IsKept(type))
        {
            _sawData |= type.SequenceEqual("fdAT"u8); // APNG frame data (sequence number + data)
            if (!ByteRange.TryAdd(ranges, maxRanges, position + 4, length + 4L)) // type + data, not the CRC
            {
                return PngChunkStep.Invalid;
            }
        }

        next = data + length + 4;
        return PngChunkStep.Next;
    }


    private static bool IsKept(ReadOnlySpan<byte> type)
        => (type[0] & 0x20) == 0 // critical: IHDR, PLTE and any unknown critical chunk
           || type.SequenceEqual("tRNS"u8) || type.SequenceEqual("acTL"u8) || type.SequenceEqual("fcTL"u8) || type.SequenceEqual("fdAT"u8);

    private static bool IsChunkType(ReadOnlySpan<byte> type)
    {
        foreach (var c in type)
        {
            if (c is not (>= (byte)'A' and <= (byte)'Z' or >= (byte)'a' and <= (byte)'z'))
            {
                return false;
            }
        }

        return true;
    }
}
