namespace Dedup.Core.Enumeration;

/// <summary>
/// Identifies a file independently of its names: device and inode on Unix (volume serial and file
/// index on Windows). Two names with the same identity are hard links to one file.
/// </summary>
/// <param name="Device">The device (volume) number.</param>
/// <param name="FileId">The file's number on that device (inode).</param>
public readonly record struct FileIdentity(ulong Device, ulong FileId)
{
    /// <inheritdoc />
    public override string ToString() => $"{Device >> 32}:{Device & 0xFFFFFFFF}/{FileId}";
}
