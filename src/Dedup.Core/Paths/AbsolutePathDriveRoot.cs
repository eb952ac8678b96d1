using System.Collections.Concurrent;

namespace Dedup.Core.Paths;

/// <summary>
/// The root node of an <see cref="AbsolutePath"/> (<c>/</c> on Unix, <c>C:\</c> on Windows), one shared
/// instance per root, with information about the volume mounted there.
/// </summary>
public sealed class AbsolutePathDriveRoot : AbsolutePath
{
    private static readonly ConcurrentDictionary<string, AbsolutePathDriveRoot> s_roots = new(StringComparer.Ordinal);
    private DriveInfo? _drive;
    private bool _driveResolved;

    private AbsolutePathDriveRoot(string name)
        : base(name, null)
    {
    }

    /// <summary>The file-system type mounted at this root (for example <c>ext4</c> or <c>NTFS</c>), if known.</summary>
    public string? FileSystemType => Drive?.DriveFormat;

    /// <summary>The kind of drive (fixed, network, removable, RAM) as the platform reports it.</summary>
    public DriveType DriveType => Drive?.DriveType ?? DriveType.Unknown;

    /// <summary>The volume label, if the platform reports one.</summary>
    public string? VolumeLabel
    {
        get
        {
            try
            {
                return Drive?.VolumeLabel;
            }
            catch (IOException)
            {
                return null;
            }
            catch (UnauthorizedAccessException)
            {
                return null;
            }
        }
    }

    private DriveInfo? Drive
    {
        get
        {
            if (!_driveResolved)
            {
                try
                {
                    _drive = new DriveInfo(Name);
                    _ = _drive.DriveFormat;
                }
                catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException)
                {
                    _drive = null;
                }

                _driveResolved = true;
            }

            return _drive;
        }
    }

    /// <summary>Returns the shared root node for <paramref name="rootText"/>.</summary>
    /// <param name="rootText">A path root such as <c>/</c> or <c>C:\</c>.</param>
    /// <returns>The shared node.</returns>
    public static AbsolutePathDriveRoot Get(string rootText)
    {
        ArgumentException.ThrowIfNullOrEmpty(rootText);
        return s_roots.GetOrAdd(rootText, static text => new AbsolutePathDriveRoot(text));
    }
}
