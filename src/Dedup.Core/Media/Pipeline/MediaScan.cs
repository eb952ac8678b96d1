namespace Dedup.Core.Media.Pipeline;

/// <summary>Media mode's side of one scan: the locators' settings and the PNG follower the scan's reader is given.</summary>
internal sealed class MediaScan
{
    public MediaScan(DuplicateFinderOptions options)
    {
        Options = MediaOptions.Default with { Buffers = options.Buffers };
        Follower = new PngFollower(Options);
    }

    /// <summary>The locators' settings, reading through the scan's buffer pool.</summary>
    public MediaOptions Options { get; }

    /// <summary>The scan reader's observer.</summary>
    public PngFollower Follower { get; }
}
