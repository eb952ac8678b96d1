using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking.Prediction;

// Linux: the capability probes (FileSystemProbe) and the owner and mode check on the files' current status.
internal sealed partial class PlanPredictor
{
    private readonly Dictionary<DuplicateFile, StatxBuffer?> _statuses = new(ReferenceEqualityComparer.Instance);

    [SupportedOSPlatform("linux")]
    private string? RefuseOnLinux(DuplicateGroup group, DuplicateFile kept, DuplicateFile duplicate)
    {
        if (Unreachable(group.Roots, kept, duplicate) is { } unreachable)
        {
            return unreachable;
        }

        // Only the built-in clone and dedupe declare those operations; a custom linker may do anything.
        if (_capabilities.Probe != ProbedOperation.None)
        {
            return Capability(kept, duplicate);
        }

        return _capabilities.SharesKeptMetadata ? OwnerAndModeOf(kept, duplicate) : null;
    }

    [SupportedOSPlatform("linux")]
    private readonly Dictionary<DuplicateFile, List<FileExtents.Extent>?> _extents = new(ReferenceEqualityComparer.Instance);

    [SupportedOSPlatform("linux")]
    private long ReclaimableOnLinux(DuplicateFile kept, DuplicateFile duplicate, out bool alreadyShared)
    {
        alreadyShared = false;
        if (_capabilities.Probe == ProbedOperation.None || ExtentsOf(duplicate) is not { } extents)
        {
            return duplicate.Length;
        }

        alreadyShared = ExtentsOf(kept) is { } keptExtents && FileExtents.AllSharedWith(extents, keptExtents);
        return FileExtents.UnsharedBytes(extents, duplicate.Length);
    }

    [SupportedOSPlatform("linux")]
    private List<FileExtents.Extent>? ExtentsOf(DuplicateFile file)
    {
        if (!_extents.TryGetValue(file, out var extents))
        {
            extents = FileExtents.Of(file.Path.ToString(), file.Identity);
            _extents[file] = extents;
        }

        return extents;
    }

    [SupportedOSPlatform("linux")]
    private string? Capability(DuplicateFile kept, DuplicateFile duplicate) =>
        duplicate.Path.Parent is { } folder
            ? Capability(linker.Kind, duplicate.Identity.Device, () => FileSystemProbe.Probe(_capabilities.Probe, kept.Path.ToString(), kept, folder.ToString(), duplicate.Identity.Device))
            : null;

    /// <summary>
    /// The executor reaches both folders from the scanned root holding them (<see cref="FolderHandle.TryOpenBeneath"/>)
    /// and skips the action when none does: a group made by hand without <see cref="DuplicateGroup.Roots"/>, or a file
    /// outside them. Said here, worded as the executor words it, so the dry run shows it.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static string? Unreachable(IReadOnlyList<ScanRoot> roots, DuplicateFile kept, DuplicateFile duplicate)
    {
        if (roots.Count == 0)
        {
            return "no scanned root is known for the group (it was not made by a scan or a report; set DuplicateGroup.Roots): files are reached only from a scanned root, so nothing is done";
        }

        // A root that is a file reaches that name only.
        if (kept.Path.Parent is { } keptFolder && !ScanRoot.Reaches(roots, kept.Path))
        {
            return $"kept file's folder {keptFolder.ToDisplayString()}: is not under any scanned root; nothing done";
        }

        return duplicate.Path.Parent is { } folder && !ScanRoot.Reaches(roots, duplicate.Path)
            ? $"duplicate's folder {folder.ToDisplayString()}: is not under any scanned root; left untouched"
            : null;
    }

    [SupportedOSPlatform("linux")]
    private OwnerAndMode.Access? AccessOnLinux(DuplicateFile file) =>
        StatusOf(file) is { } status ? new OwnerAndMode.Access(status.Uid, status.Gid, status.Mode & OwnerAndMode.Permissions) : null;

    /// <summary>The executor's owner, group and permissions rule, on the files' status now (when both are still the scanned files).</summary>
    [SupportedOSPlatform("linux")]
    private string? OwnerAndModeOf(DuplicateFile kept, DuplicateFile duplicate)
    {
        if (StatusOf(kept) is not { } k || StatusOf(duplicate) is not { } d)
        {
            return null; // changed or gone: the executor's re-checks say so when applying
        }

        return OwnerAndMode.Difference(k.Uid, k.Gid, k.Mode, d.Uid, d.Gid, d.Mode);
    }

    [SupportedOSPlatform("linux")]
    private StatxBuffer? StatusOf(DuplicateFile file)
    {
        if (!_statuses.TryGetValue(file, out var status))
        {
            status = Libc.LStat(file.Path.ToString(), out var now) == 0 && now.IsRegularFile
                && now.Device == file.Identity.Device && now.Ino == file.Identity.FileId
                ? now
                : null;
            _statuses[file] = status;
        }

        return status;
    }
}
