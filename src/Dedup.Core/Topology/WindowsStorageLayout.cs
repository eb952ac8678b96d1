using System.Buffers.Binary;
using System.Globalization;

namespace Dedup.Core.Topology;

/// <summary>
/// The platform-neutral half of <see cref="WindowsDriveTopology"/>: the byte layouts of the storage
/// ioctl, drive-type and path-root rules. Kept apart from the native calls so it runs, and is tested,
/// on every platform.
/// </summary>
internal static class WindowsStorageLayout
{
    // GetDriveTypeW results (winbase.h).
    public const uint DRIVE_UNKNOWN = 0;
    public const uint DRIVE_NO_ROOT_DIR = 1;
    public const uint DRIVE_REMOVABLE = 2;
    public const uint DRIVE_FIXED = 3;
    public const uint DRIVE_REMOTE = 4;
    public const uint DRIVE_CDROM = 5;
    public const uint DRIVE_RAMDISK = 6;

    /// <summary>STORAGE_PROPERTY_ID.StorageDeviceSeekPenaltyProperty (winioctl.h).</summary>
    public const int StorageDeviceSeekPenaltyProperty = 7;

    /// <summary>STORAGE_QUERY_TYPE.PropertyStandardQuery.</summary>
    public const int PropertyStandardQuery = 0;

    /// <summary>sizeof(STORAGE_PROPERTY_QUERY): two 4-byte enums and <c>BYTE AdditionalParameters[1]</c>, padded to 4.</summary>
    public const int PropertyQuerySize = 12;

    /// <summary>sizeof(DEVICE_SEEK_PENALTY_DESCRIPTOR): <c>DWORD Version, Size; BOOLEAN IncursSeekPenalty</c>, padded to 4.</summary>
    public const int SeekPenaltyDescriptorSize = 12;

    private const int IncursSeekPenaltyOffset = 8;

    /// <summary>Writes the STORAGE_PROPERTY_QUERY that asks for the seek-penalty descriptor (little-endian, as on every Windows target).</summary>
    public static void WriteSeekPenaltyQuery(Span<byte> destination)
    {
        var query = destination[..PropertyQuerySize];
        query.Clear();
        BinaryPrimitives.WriteInt32LittleEndian(query, StorageDeviceSeekPenaltyProperty);
        BinaryPrimitives.WriteInt32LittleEndian(query[4..], PropertyStandardQuery);
    }

    /// <summary>
    /// Decodes the bytes an IOCTL_STORAGE_QUERY_PROPERTY returned: a seek penalty means a rotating disk.
    /// A reply too short to hold the flag, or whose Size says it does not, is <see cref="DriveKind.Unknown"/>.
    /// </summary>
    /// <param name="returned">The output buffer cut to the byte count the ioctl reported.</param>
    public static DriveKind DecodeSeekPenalty(ReadOnlySpan<byte> returned)
    {
        if (returned.Length <= IncursSeekPenaltyOffset)
        {
            return DriveKind.Unknown;
        }

        var size = BinaryPrimitives.ReadUInt32LittleEndian(returned[4..]);
        if (size <= IncursSeekPenaltyOffset)
        {
            return DriveKind.Unknown;
        }

        return returned[IncursSeekPenaltyOffset] != 0 ? DriveKind.Hdd : DriveKind.Ssd;
    }

    /// <summary>The kind a drive type settles on its own, or <see langword="null"/> when the device must be asked.</summary>
    public static DriveKind? KindFromDriveType(uint driveType) => driveType switch
    {
        DRIVE_REMOTE => DriveKind.Network,
        DRIVE_RAMDISK => DriveKind.Ram,
        _ => null,
    };

    /// <summary>
    /// The kind of a volume root that no local volume matched by serial: a share (UNC root, or a drive
    /// letter mapped to one) is network storage; otherwise only the drive type can tell.
    /// </summary>
    public static DriveKind KindOfUnlistedRoot(string root, uint driveType) =>
        IsUncRoot(root) ? DriveKind.Network : KindFromDriveType(driveType) ?? DriveKind.Unknown;

    /// <summary>
    /// Several local volumes can share a serial (cloned disks). They get one device id, so one kind:
    /// their common kind, or HDD if any is rotational (one reader at a time is safe for all), else unknown.
    /// </summary>
    public static DriveKind Combine(IReadOnlyList<DriveKind> kinds)
    {
        if (kinds.Count == 0)
        {
            return DriveKind.Unknown;
        }

        var first = kinds[0];
        var same = true;
        var anyHdd = false;
        foreach (var kind in kinds)
        {
            same &= kind == first;
            anyHdd |= kind == DriveKind.Hdd;
        }

        return same ? first : anyHdd ? DriveKind.Hdd : DriveKind.Unknown;
    }

    /// <summary>A serial as <c>vol</c> and <c>dir</c> print it: <c>1A2B-3C4D</c>.</summary>
    public static string FormatSerial(uint serial) =>
        string.Create(CultureInfo.InvariantCulture, $"{serial >> 16:X4}-{serial & 0xFFFF:X4}");

    /// <summary>The first string of a double-NUL-terminated list (GetVolumePathNamesForVolumeNameW), or <see langword="null"/> if empty.</summary>
    public static string? FirstOfMultiString(ReadOnlySpan<char> buffer)
    {
        var end = buffer.IndexOf('\0');
        var first = end < 0 ? buffer : buffer[..end];
        return first.IsEmpty ? null : first.ToString();
    }

    /// <summary>
    /// The device to open for a volume root: <c>\\?\Volume{…}\</c> → <c>\\?\Volume{…}</c> and <c>C:\</c> →
    /// <c>\\.\C:</c> (with the trailing backslash CreateFileW would open the root folder, not the volume);
    /// <see langword="null"/> for shares, which have no local device.
    /// </summary>
    public static string? DevicePathOf(string root)
    {
        if (IsUncRoot(root))
        {
            return null;
        }

        var trimmed = root.TrimEnd('\\');
        if (trimmed.Length == 2 && char.IsAsciiLetter(trimmed[0]) && trimmed[1] == ':')
        {
            return @"\\.\" + trimmed;
        }

        return trimmed.StartsWith(@"\\?\Volume{", StringComparison.OrdinalIgnoreCase) ? trimmed : null;
    }

    /// <summary>Whether a root names a share (<c>\\server\share\</c>) rather than a local volume.</summary>
    public static bool IsUncRoot(string root) =>
        root.StartsWith(@"\\", StringComparison.Ordinal) && !root.StartsWith(@"\\?\", StringComparison.Ordinal) && !root.StartsWith(@"\\.\", StringComparison.Ordinal);

    /// <summary>
    /// The volume root of a full path, ending in a backslash as GetVolumeInformationW and GetDriveTypeW
    /// need: <c>C:\</c>, <c>\\server\share\</c> (also from <c>\\?\UNC\server\share</c>), <c>\\?\Volume{…}\</c>;
    /// <see langword="null"/> for anything else. Written out rather than Path.GetPathRoot so it behaves
    /// the same on every platform.
    /// </summary>
    public static string? VolumeRootOf(string fullPath)
    {
        var path = fullPath.Replace('/', '\\');
        if (path.StartsWith(@"\\?\", StringComparison.Ordinal) || path.StartsWith(@"\\.\", StringComparison.Ordinal))
        {
            var rest = path[4..];
            if (rest.StartsWith(@"UNC\", StringComparison.OrdinalIgnoreCase))
            {
                return UncRoot(rest[4..]);
            }

            if (rest.StartsWith("Volume{", StringComparison.OrdinalIgnoreCase))
            {
                var close = rest.IndexOf('}', StringComparison.Ordinal);
                return close < 0 ? null : path[..(4 + close + 1)] + @"\";
            }

            return DriveRoot(rest);
        }

        return path.StartsWith(@"\\", StringComparison.Ordinal) ? UncRoot(path[2..]) : DriveRoot(path);
    }

    /// <summary>
    /// Adds the <c>\\?\</c> prefix a path needs past MAX_PATH when it is passed to CreateFileW directly
    /// (the BCL does this for its own calls). Shorter paths are left as they are.
    /// </summary>
    public static string WithLongPathPrefix(string fullPath)
    {
        if (fullPath.Length < 248 || fullPath.StartsWith(@"\\?\", StringComparison.Ordinal) || fullPath.StartsWith(@"\\.\", StringComparison.Ordinal))
        {
            return fullPath;
        }

        // The prefix turns off normalisation, so separators must already be backslashes.
        var path = fullPath.Replace('/', '\\');
        return path.StartsWith(@"\\", StringComparison.Ordinal) ? @"\\?\UNC\" + path[2..] : @"\\?\" + path;
    }

    private static string? DriveRoot(string path) =>
        path.Length >= 2 && char.IsAsciiLetter(path[0]) && path[1] == ':' && (path.Length == 2 || path[2] == '\\')
            ? string.Concat(path.AsSpan(0, 2), @"\")
            : null;

    private static string? UncRoot(string serverAndShare)
    {
        var parts = serverAndShare.Split('\\');
        return parts.Length >= 2 && parts[0].Length > 0 && parts[1].Length > 0 ? $@"\\{parts[0]}\{parts[1]}\" : null;
    }
}
