namespace Dedup.Core;

/// <summary>Which content a duplicate match rests on.</summary>
public enum ContentMatch
{
    /// <summary>Every byte of the files is equal.</summary>
    WholeFile = 0,

    /// <summary>The media payload (audio frames, image data, samples) is equal; tags and metadata may differ.</summary>
    MediaPayload = 1,
}
