namespace Dedup.Core.Media;

/// <summary>Settings for locating media payloads, and the hard limits that bound work on malformed input.</summary>
internal sealed record MediaOptions
{
    public static MediaOptions Default { get; } = new();

    /// <summary>
    /// Leave out an MP3's Xing/Info/VBRI header frame: it holds encoder statistics (frame count, seek table,
    /// LAME tag CRCs) that taggers and re-muxers may rewrite while the audio frames stay the same.
    /// </summary>
    public bool SkipMp3InfoFrame { get; init; } = true;

    /// <summary>Bytes the parser may read beyond twice the file length, before giving up.</summary>
    public long ExtraParseBytes { get; init; } = 4L << 20;

    /// <summary>Parser steps (segments, chunks, boxes, frames, table entries) before giving up.</summary>
    public long MaxSteps { get; init; } = 64L << 20;

    /// <summary>The pool the reader's buffers come from (a scan passes its own).</summary>
    public Pooling.BufferPool Buffers { get; init; } = Pooling.BufferPool.Shared;

    /// <summary>Payload ranges kept before giving up (memory bound: 16 bytes each).</summary>
    public int MaxRanges { get; init; } = 1 << 20;
}
