// Compiled on every platform; untested here (no Windows machine): moving a file to the Recycle Bin with
// SHFileOperationW. The path refusals, the source list and the struct layout are tested on Linux.
using System.Globalization;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking.Trash;

/// <summary>
/// Moves one file to the Recycle Bin silently and with undo: SHFileOperationW, FO_DELETE with FOF_ALLOWUNDO,
/// FOF_NOCONFIRMATION, FOF_SILENT and FOF_NOERRORUI. Where there is no Recycle Bin, Windows would delete the
/// file permanently without asking, so network, removable and other non-fixed drives are refused up front.
/// A file larger than the Recycle Bin's maximum size is still deleted permanently by Windows.
/// </summary>
internal static unsafe partial class RecycleBin
{
    /// <summary>SHFileOperationW does not take <c>\\?\</c> names, so MAX_PATH applies.</summary>
    private const int MaxPath = 260;

    /// <summary>Why <paramref name="path"/> must not be handed to SHFileOperationW, or <see langword="null"/> (string checks only).</summary>
    internal static string? RefusalForPath(string path)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            return "the path contains a NUL character; not moved";
        }

        if (path.StartsWith(@"\\", StringComparison.Ordinal))
        {
            return "a network (UNC) or device path has no Recycle Bin (Windows would delete the file permanently); not moved";
        }

        if (path.Length < 3 || !char.IsAsciiLetter(path[0]) || path[1] != ':' || path[2] != '\\')
        {
            return "not a full path on a drive letter (X:\\…); not moved";
        }

        // pFrom accepts wildcards; Windows names cannot hold these, but a pattern must never reach it.
        if (path.AsSpan().IndexOfAny('*', '?') >= 0)
        {
            return "the path contains a wildcard character; not moved";
        }

        return path.Length >= MaxPath
            ? string.Create(CultureInfo.InvariantCulture, $"the path is {path.Length} characters long and SHFileOperationW takes only paths shorter than {MaxPath}; not moved")
            : null;
    }

    /// <summary><c>pFrom</c>: each name NUL-terminated, the list ended by a second NUL.</summary>
    internal static string SourceList(string path) => path + "\0\0";

    /// <summary>The meaning of an SHFileOperationW result: its own DE_* codes, else a Win32 error code.</summary>
    internal static string DescribeResult(int code)
    {
        var text = code switch
        {
            0x75 => "the operation was cancelled",
            0x78 => "access to the file was denied",
            0x79 => "the path is too deep",
            0x7C => "the path is invalid",
            0x81 => "the name is too long",
            0xB7 => "a path exceeded MAX_PATH",
            0x402 => "unknown error (typically an invalid path)",
            _ => Marshal.GetPInvokeErrorMessage(code),
        };
        return string.Create(CultureInfo.InvariantCulture, $"{text} (SHFileOperationW result 0x{code:X})");
    }

    /// <summary>
    /// Moves <paramref name="path"/> to its drive's Recycle Bin; throws <see cref="ActionStoppedException"/> when it is not
    /// moved. Returns where it went (<see cref="Locate"/>), or <see langword="null"/> when that cannot be found.
    /// </summary>
    [SupportedOSPlatform("windows")]
    public static TrashedLocation? Move(string path, FileIdentity? identity)
    {
        if (!Environment.Is64BitProcess)
        {
            throw ActionStoppedException.Skip("the Recycle Bin is implemented for 64-bit processes only (SHFILEOPSTRUCTW is packed differently in a 32-bit one); not moved");
        }

        string? volume = null;
        var refusal = RefusalForPath(path) ?? RefusalForDrive(path, out volume);
        if (refusal is not null)
        {
            throw ActionStoppedException.Skip(refusal);
        }

        int result;
        bool aborted;
        fixed (char* from = SourceList(path))
        {
            var operation = new ShFileOpStruct
            {
                Function = Shell32.FO_DELETE,
                From = (nint)from,
                Flags = Shell32.FOF_ALLOWUNDO | Shell32.FOF_NOCONFIRMATION | Shell32.FOF_SILENT | Shell32.FOF_NOERRORUI,
            };
            result = Shell32.SHFileOperation(&operation);
            aborted = operation.AnyOperationsAborted != 0;
        }

        if (result != 0)
        {
            throw PlanExecutor.TrashMoveFailed(path, "cannot move to the Recycle Bin: " + DescribeResult(result));
        }

        if (aborted)
        {
            throw PlanExecutor.TrashMoveFailed(path, "the move to the Recycle Bin was aborted");
        }

        return identity is { } id && volume is not null && Advapi32.CurrentUserSid() is { } sid ? Locate(Path.Combine(volume, "$Recycle.Bin", sid), path, id) : null;
    }

    /// <summary>
    /// Classifies the volume that really holds the file, not the drive letter the path starts with: a mount folder,
    /// junction or symbolic link on <c>C:</c> can lead to a removable or network volume, where Windows keeps no
    /// Recycle Bin and would delete permanently.
    /// </summary>
    [SupportedOSPlatform("windows")]
    private static string? RefusalForDrive(string path, out string? root)
    {
        var volume = VolumeRootOf(path);
        root = volume is null ? null : DriveLetterOf(volume) ?? volume;
        if (volume is null)
        {
            return "cannot tell which volume holds the file (so whether it has a Recycle Bin); not moved";
        }

        var type = Kernel32.GetDriveType(volume);
        if (type == Topology.WindowsStorageLayout.DRIVE_UNKNOWN && DriveLetterOf(volume) is { } letter)
        {
            // Wine answers DRIVE_UNKNOWN for every volume GUID root; the same volume's drive letter still says what the
            // volume is (a removable or network volume answers so there too). A volume without a letter stays refused.
            type = Kernel32.GetDriveType(letter);
            volume = $"{volume}, mounted at {letter}";
        }

        return type == Topology.WindowsStorageLayout.DRIVE_FIXED
            ? null
            : $"the file is on a volume of drive type {type.ToString(CultureInfo.InvariantCulture)} ({volume}), not a fixed disk: Windows keeps no Recycle Bin there and would delete the file permanently; not moved (use Delete to remove it permanently)";
    }

    /// <summary>The first drive-letter root (<c>X:\</c>) <paramref name="volume"/> is mounted at, or <see langword="null"/>.</summary>
    [SupportedOSPlatform("windows")]
    private static string? DriveLetterOf(string volume)
    {
        const int Capacity = 4096;
        var buffer = new char[Capacity];
        uint length;
        fixed (char* p = buffer)
        {
            if (!Kernel32.GetVolumePathNamesForVolumeName(volume, p, Capacity, &length))
            {
                return null;
            }
        }

        return DriveLetterRoot(buffer.AsSpan(0, (int)Math.Min(length, Capacity)));
    }

    /// <summary>The first <c>X:\</c> entry of a double-NUL-terminated list of mount paths (mount folders are skipped).</summary>
    internal static string? DriveLetterRoot(ReadOnlySpan<char> list)
    {
        while (!list.IsEmpty && list[0] != '\0')
        {
            var end = list.IndexOf('\0');
            var entry = end < 0 ? list : list[..end];
            if (entry.Length == 3 && char.IsAsciiLetter(entry[0]) && entry[1] == ':' && entry[2] == '\\')
            {
                return entry.ToString();
            }

            list = end < 0 ? ReadOnlySpan<char>.Empty : list[(end + 1)..];
        }

        return null;
    }

    [SupportedOSPlatform("windows")]
    private static string? VolumeRootOf(string path)
    {
        using var handle = Kernel32.CreateFile(path, 0, Kernel32.FILE_SHARE_READ | Kernel32.FILE_SHARE_WRITE | Kernel32.FILE_SHARE_DELETE, 0,
            Kernel32.OPEN_EXISTING, Kernel32.FILE_FLAG_BACKUP_SEMANTICS | Kernel32.FILE_FLAG_OPEN_REPARSE_POINT, 0);
        if (handle.IsInvalid)
        {
            return null;
        }

        const int Capacity = 32_768;
        var buffer = new char[Capacity];
        uint length;
        fixed (char* p = buffer)
        {
            length = Kernel32.GetFinalPathNameByHandle(handle, p, Capacity, Kernel32.VOLUME_NAME_GUID);
        }

        return length == 0 || length >= Capacity ? null : VolumeRootFromFinalPath(new string(buffer, 0, (int)length));
    }

    /// <summary><c>\\?\Volume{GUID}\folder\file</c> → <c>\\?\Volume{GUID}\</c>; <see langword="null"/> for anything else.</summary>
    internal static string? VolumeRootFromFinalPath(string finalPath)
    {
        const string Prefix = @"\\?\Volume{";
        if (!finalPath.StartsWith(Prefix, StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        var close = finalPath.IndexOf('}', Prefix.Length);
        return close < 0 || close + 1 >= finalPath.Length || finalPath[close + 1] != '\\' ? null : finalPath[..(close + 2)];
    }
}
