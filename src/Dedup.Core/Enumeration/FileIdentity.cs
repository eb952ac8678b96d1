namespace Dedup.Core.Enumeration;

/// <summary>
/// Identifies a file independently of its names: device and inode on Unix (volume serial and file
/// index on Windows). Two names with the same identity are hard links to one file.
/// </summary>
/// <remarks>
/// <para>
/// <b>Encoding on Linux.</b> <see cref="Device"/> is <c>(major &lt;&lt; 32) | minor</c>: the device's major and
/// minor numbers as <c>statx</c> reports them (<c>stx_dev_major</c>, <c>stx_dev_minor</c>), and
/// <see cref="FileId"/> is the inode. This is <em>not</em> <c>stat</c>'s <c>st_dev</c>, which packs the same two
/// numbers differently (device 8:3 is <c>st_dev</c> 2051 but <see cref="Device"/> 0x8_0000_0003). Fill an identity
/// with <see cref="FromStatx"/> or <see cref="FromUnixStat"/> rather than the constructor.
/// </para>
/// <para>
/// On Linux the scan checks every file it opens against the identity its <see cref="IFileEnumerator"/> gave, so a
/// file replaced during the scan is never reported. Identities in another encoding (raw <c>st_dev</c>, counters)
/// would fail that check for every file: the scan then reports a <see cref="Reporting.ScanError"/> per file
/// saying that the enumerator's identity does not match the file system's, instead of returning no groups silently.
/// </para>
/// <para>
/// <b>Encoding on Windows.</b> <see cref="Device"/> is the volume serial number as <c>GetVolumeInformationW</c> and
/// <c>BY_HANDLE_FILE_INFORMATION</c> give it (32 bits; <c>FILE_ID_INFO</c>'s 64-bit serial is cut to its low 32 bits,
/// which is what those report), so it matches the topology's devices. <see cref="FileId"/> is the file ID: the
/// 128-bit <c>FILE_ID_INFO</c> ID when its high 64 bits are zero (NTFS, FAT: it is then the 64-bit file index
/// <c>GetFileInformationByHandle</c> gives, exactly), else (ReFS) the low 64 bits XOR a bijective mix of the high
/// 64 bits — two files of one ReFS volume may then share a <see cref="FileId"/> with odds of 2^-64 per pair.
/// The library's enumerator reads them on Windows, and the scan checks them when it opens a file, as on Linux.
/// </para>
/// <para>
/// On macOS the enumerator gives <c>lstat</c>'s <c>st_dev</c> and <c>st_ino</c> (<c>new FileIdentity(st_dev, st_ino)</c>);
/// the scan does not compare identities there when it opens a file: they fold hard links (equal identities are
/// read once) and choose the device for <see cref="Topology.IDriveTopology"/>.
/// </para>
/// </remarks>
/// <param name="Device">The device (volume) number; on Linux <c>(major &lt;&lt; 32) | minor</c>.</param>
/// <param name="FileId">The file's number on that device (inode).</param>
public readonly record struct FileIdentity(ulong Device, ulong FileId)
{
    /// <summary>Creates the identity of a file from the device numbers and inode <c>statx</c> reports (Linux).</summary>
    /// <param name="deviceMajor">The device's major number (<c>stx_dev_major</c>).</param>
    /// <param name="deviceMinor">The device's minor number (<c>stx_dev_minor</c>).</param>
    /// <param name="inode">The inode (<c>stx_ino</c>).</param>
    /// <returns>The identity, with <see cref="Device"/> = <c>(major &lt;&lt; 32) | minor</c>.</returns>
    public static FileIdentity FromStatx(uint deviceMajor, uint deviceMinor, ulong inode) =>
        new(((ulong)deviceMajor << 32) | deviceMinor, inode);

    /// <summary>
    /// Creates the identity of a file from <c>stat</c>'s <c>st_dev</c> and <c>st_ino</c> as Linux reports them
    /// (glibc and musl, the <c>stat -c %d</c> and <c>find -printf %D</c> commands): the major and
    /// minor numbers are taken out of <c>st_dev</c> as glibc's <c>gnu_dev_major</c> and <c>gnu_dev_minor</c> do, then
    /// packed as <see cref="FromStatx"/> packs them.
    /// </summary>
    /// <remarks>
    /// <c>st_dev</c> holds the major number in bits 8–19 and 32–63 and the minor number in bits 0–7 and 20–31; the
    /// kernel's 32-bit encoding (<c>new_encode_dev</c>) is the same for devices that fit it. Other systems encode
    /// <c>st_dev</c> otherwise (macOS: major in the top 8 bits); the scan does not check identities there, so use
    /// <c>new FileIdentity(st_dev, st_ino)</c>.
    /// </remarks>
    /// <param name="deviceNumber">The <c>st_dev</c> field.</param>
    /// <param name="inode">The <c>st_ino</c> field.</param>
    /// <returns>The identity in the library's encoding.</returns>
    public static FileIdentity FromUnixStat(ulong deviceNumber, ulong inode)
    {
        var major = (uint)(((deviceNumber & 0x0000_0000_000F_FF00UL) >> 8) | ((deviceNumber & 0xFFFF_F000_0000_0000UL) >> 32));
        var minor = (uint)((deviceNumber & 0x0000_0000_0000_00FFUL) | ((deviceNumber & 0x0000_0FFF_FFF0_0000UL) >> 12));
        return FromStatx(major, minor, inode);
    }

    /// <summary>
    /// The identity of a Windows file from its volume serial and 128-bit file ID (low and high 64 bits, as
    /// <c>FILE_ID_INFO</c> holds them little-endian); see the remarks for the encoding.
    /// </summary>
    internal static FileIdentity FromWindows(ulong volumeSerial, ulong fileIdLow, ulong fileIdHigh) =>
        new((uint)volumeSerial, fileIdHigh == 0 ? fileIdLow : fileIdLow ^ Mix(fileIdHigh));

    /// <summary>splitmix64's finalizer: a bijection, so IDs differing only in their high half never collide.</summary>
    private static ulong Mix(ulong value)
    {
        value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9UL;
        value = (value ^ (value >> 27)) * 0x94D049BB133111EBUL;
        return value ^ (value >> 31);
    }

    /// <summary>The device's major number (Linux).</summary>
    internal uint DeviceMajor => (uint)(Device >> 32);

    /// <summary>The device's minor number (Linux).</summary>
    internal uint DeviceMinor => (uint)Device;

    /// <summary><c>st_dev</c> as glibc encodes this identity's device (<c>gnu_dev_makedev</c>): what a raw <c>stat</c> gives.</summary>
    internal static ulong UnixStatDevice(uint major, uint minor) =>
        ((ulong)(major & 0x0000_0FFFu) << 8) | ((ulong)(major & 0xFFFF_F000u) << 32)
        | (minor & 0x0000_00FFu) | ((ulong)(minor & 0xFFFF_FF00u) << 12);

    /// <inheritdoc />
    public override string ToString() => $"{Device >> 32}:{Device & 0xFFFFFFFF}/{FileId}";
}
