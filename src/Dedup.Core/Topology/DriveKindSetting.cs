namespace Dedup.Core.Topology;

/// <summary>
/// One entry of <see cref="ScanOptions.DriveKinds"/>: the device holding <see cref="Path"/> is taken to be of
/// <see cref="Kind"/>. A list of entries rather than a dictionary keyed by path, because configuration keys cannot hold
/// the <c>:</c> of a Windows path.
/// </summary>
public sealed class DriveKindSetting
{
    /// <summary>An empty entry, for configuration binding.</summary>
    public DriveKindSetting()
    {
    }

    /// <summary>An entry for the device holding <paramref name="path"/>.</summary>
    /// <param name="path">A root or any path on the device.</param>
    /// <param name="kind">The kind to assume.</param>
    public DriveKindSetting(string path, DriveKind kind)
    {
        Path = path;
        Kind = kind;
    }

    /// <summary>A root or any path on the device; relative to the current directory when the finder is built.</summary>
    public string Path { get; set; } = string.Empty;

    /// <summary>The kind to assume for the device.</summary>
    public DriveKind Kind { get; set; }
}
