using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Pooling;
using Dedup.Core.Reporting;

namespace Dedup.Core;

/// <summary>The validated, immutable settings of a <see cref="DuplicateFinder"/>.</summary>
internal sealed record DuplicateFinderOptions
{
    public required IReadOnlyList<AbsolutePath> Roots { get; init; }

    public required GlobPattern[] Includes { get; init; }

    public required GlobPattern[] Excludes { get; init; }

    // The settings' defaults live in ScanOptions, their one place; Build fills every one of these.
    public required long MinSize { get; init; }

    public required long MaxSize { get; init; }

    public required bool IncludeHidden { get; init; }

    public required bool FollowSymbolicLinks { get; init; }

    public required bool StayOnOneFileSystem { get; init; }

    public required bool IncludeEmptyFiles { get; init; }

    public required IComparerStrategy Strategy { get; init; }

    public required DuplicateHashAlgorithm HashAlgorithm { get; init; }

    public required bool TrustHashes { get; init; }

    public required bool MediaMode { get; init; }

    /// <summary>Folder mode: duplicate folders are reported (see <see cref="DuplicateFinderBuilder.UseFolderMode"/>).</summary>
    public required bool FolderMode { get; init; }

    /// <summary>Folder mode compares the multiset of contents, ignoring names and layout.</summary>
    public required bool IgnoreFolderNames { get; init; }

    public required int MaxDegreeOfParallelism { get; init; }

    public IProgress<ScanProgress>? Progress { get; init; }
    public IProgress<ScanError>? ErrorCallback { get; init; }
    public Microsoft.Extensions.Logging.ILogger? Logger { get; init; }

    public required IFileEnumerator Enumerator { get; init; }

    /// <summary>The device detection, without the declared drive kinds (<see cref="DriveKinds"/>).</summary>
    public required Topology.IDriveTopology Topology { get; init; }

    /// <summary>
    /// Declared drive kinds by absolute path (a <c>..</c> still unresolved): their devices are looked up when each scan
    /// starts (<see cref="Scanning.ScanContext.CaptureDrives"/>), so a Build touches no disk for them.
    /// </summary>
    public required IReadOnlyList<(string Path, Topology.DriveKind Kind)> DriveKinds { get; init; }

    public int ChunkSize { get; init; } = 256 * 1024;

    public required BufferPool Buffers { get; init; }
}
