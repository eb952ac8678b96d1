namespace Dedup.Core.Topology;

/// <summary>The kind of storage behind a file, which decides how many readers may use it at once.</summary>
public enum DriveKind
{
    /// <summary>Not known (including virtual disks whose rotational flag cannot be trusted).</summary>
    Unknown,

    /// <summary>Solid-state: several concurrent readers help.</summary>
    Ssd,

    /// <summary>Rotational: one reader at a time, in physical order.</summary>
    Hdd,

    /// <summary>A network file system (NFS, SMB/CIFS, SSHFS).</summary>
    Network,

    /// <summary>Memory-backed (tmpfs, ramfs, zram).</summary>
    Ram,
}
