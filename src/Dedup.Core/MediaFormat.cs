namespace Dedup.Core;

/// <summary>A media container recognised by its content signature (never by the file name).</summary>
public enum MediaFormat
{
    /// <summary>Not a recognised media file; compared as a whole.</summary>
    None = 0,

    /// <summary>MPEG audio (MP3), possibly with ID3v1/ID3v2/APEv2/Lyrics3 tags.</summary>
    Mp3 = 1,

    /// <summary>Native FLAC.</summary>
    Flac = 2,

    /// <summary>JPEG/JFIF/EXIF image.</summary>
    Jpeg = 3,

    /// <summary>PNG image.</summary>
    Png = 4,

    /// <summary>RIFF WAVE audio.</summary>
    Wav = 5,

    /// <summary>RIFF WebP image (lossy, lossless or extended).</summary>
    WebP = 6,

    /// <summary>ISO base media (MP4, M4A, MOV) with a sample table.</summary>
    Mp4 = 7,
}
