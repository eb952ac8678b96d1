namespace Dedup.Core.Reports;

/// <summary>
/// A media format's name in a JSON report (<c>"format"</c> of a media-payload group): lower case, fixed here rather
/// than taken from the enum's spelling, so renaming a member cannot change the format.
/// </summary>
internal static class MediaFormatNames
{
    public static string Of(MediaFormat format) => format switch
    {
        MediaFormat.Mp3 => "mp3",
        MediaFormat.Flac => "flac",
        MediaFormat.Jpeg => "jpeg",
        MediaFormat.Png => "png",
        MediaFormat.Wav => "wav",
        MediaFormat.WebP => "webp",
        MediaFormat.Mp4 => "mp4",
        _ => throw new ArgumentOutOfRangeException(nameof(format), format, "Not a media container."),
    };

    /// <summary>The format named <paramref name="name"/>, or <see langword="null"/> for a name no format has.</summary>
    public static MediaFormat? Parse(string? name) => name switch
    {
        "mp3" => MediaFormat.Mp3,
        "flac" => MediaFormat.Flac,
        "jpeg" => MediaFormat.Jpeg,
        "png" => MediaFormat.Png,
        "wav" => MediaFormat.Wav,
        "webp" => MediaFormat.WebP,
        "mp4" => MediaFormat.Mp4,
        _ => null,
    };
}
