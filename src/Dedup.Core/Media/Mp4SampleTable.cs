namespace Dedup.Core.Media;

/// <summary>
/// One track's sample table (stsz, stsc, stco/co64 box bodies): turns chunks into payload ranges, one per
/// chunk (a chunk's samples are contiguous), in chunk order, which is sample order.
/// </summary>
internal readonly struct SampleTable(MediaReader reader, long stsz, long stszEnd, long stsc, long stscEnd, long stco, long stcoEnd, bool wide)
{
    public bool AddChunks(List<ByteRange> ranges)
    {
        // stsz: version/flags, sample_size, sample_count, then sample_count sizes when sample_size is 0.
        if (!reader.TryReadUInt32BE(stsz + 4, out var constantSize) || !reader.TryReadUInt32BE(stsz + 8, out var sampleCount))
        {
            return false;
        }

        if (constantSize == 0 && sampleCount > (stszEnd - stsz - 12) / 4)
        {
            return false;
        }

        // stsc: version/flags, entry_count, then (first_chunk, samples_per_chunk, description index).
        if (!reader.TryReadUInt32BE(stsc + 4, out var runCount) || runCount == 0 || runCount > (stscEnd - stsc - 8) / 12)
        {
            return false;
        }

        // stco/co64: version/flags, entry_count, then 32- or 64-bit chunk offsets.
        var entrySize = wide ? 8 : 4;
        if (!reader.TryReadUInt32BE(stco + 4, out var chunkCount) || chunkCount > (stcoEnd - stco - 8) / entrySize
            || chunkCount > reader.Options.MaxRanges)
        {
            return false;
        }

        long sample = 0;
        var run = 0;
        long runFirst = 0, nextRunFirst = 0, perChunk = 0;
        if (!ReadRun(0, out runFirst, out perChunk) || runFirst != 1 || !NextRunFirst(1, runCount, out nextRunFirst) || nextRunFirst <= runFirst)
        {
            return false;
        }

        for (long chunk = 1; chunk <= chunkCount; chunk++)
        {
            if (!reader.Step())
            {
                return false;
            }

            while (chunk >= nextRunFirst)
            {
                run++;
                // stsc runs must start at increasing chunks; a run that does not is malformed, not skipped.
                if (!ReadRun(run, out runFirst, out perChunk) || !NextRunFirst(run + 1, runCount, out nextRunFirst) || nextRunFirst <= runFirst)
                {
                    return false;
                }
            }

            if (!ReadChunkOffset(chunk - 1, out var offset) || perChunk > sampleCount - sample)
            {
                return false;
            }

            long bytes;
            if (constantSize != 0)
            {
                if (perChunk > reader.Length / constantSize)
                {
                    return false;
                }

                bytes = perChunk * constantSize;
            }
            else
            {
                bytes = 0;
                for (var i = 0; i < perChunk; i++)
                {
                    if (!reader.TryReadUInt32BE(stsz + 12 + ((sample + i) * 4), out var size))
                    {
                        return false;
                    }

                    bytes += size;
                }
            }

            if (!reader.Contains(offset, bytes) || !reader.TryAddRange(ranges, offset, bytes))
            {
                return false;
            }

            sample += perChunk;
        }

        return sample == sampleCount && sampleCount > 0;
    }

    private bool ReadRun(long index, out long firstChunk, out long samplesPerChunk)
    {
        var at = stsc + 8 + (index * 12);
        var ok = reader.TryReadUInt32BE(at, out var first) & reader.TryReadUInt32BE(at + 4, out var count);
        (firstChunk, samplesPerChunk) = (first, count);
        return ok && count > 0;
    }

    /// <summary>The first chunk of run <paramref name="index"/>, or "never" after the last run.</summary>
    private bool NextRunFirst(long index, long runCount, out long firstChunk)
    {
        firstChunk = long.MaxValue;
        return index >= runCount || ReadRun(index, out firstChunk, out _);
    }

    private bool ReadChunkOffset(long index, out long offset)
    {
        if (wide)
        {
            var ok = reader.TryReadUInt64BE(stco + 8 + (index * 8), out var value);
            offset = (long)Math.Min(value, long.MaxValue);
            return ok;
        }

        var ok32 = reader.TryReadUInt32BE(stco + 8 + (index * 4), out var value32);
        offset = value32;
        return ok32;
    }
}
