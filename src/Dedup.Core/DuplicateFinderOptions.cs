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

    public long MinSize { get; init; }

    public long MaxSize { get; init; } = long.MaxValue;

    public bool IncludeHidden { get; init; } = true;

    public bool FollowSymbolicLinks { get; init; }

    public bool StayOnOneFileSystem { get; init; }

    public bool IncludeEmptyFiles { get; init; }

    public required IComparerStrategy Strategy { get; init; }

    public DuplicateHashAlgorithm HashAlgorithm { get; init; }

    public bool TrustHashes { get; init; }

    public bool MediaMode { get; init; }

    /// <summary>Folder mode: duplicate folders are reported (see <see cref="DuplicateFinderBuilder.UseFolderMode"/>).</summary>
    public bool FolderMode { get; init; }

    /// <summary>Folder mode compares the multiset of contents, ignoring names and layout.</summary>
    public bool IgnoreFolderNames { get; init; }

    public int MaxDegreeOfParallelism { get; init; } = DefaultDegreeOfParallelism;

    /// <summary>
    /// Four threads per processor, 4 to 32 (fclones' default for SSDs): a cold scan spends its time waiting for reads,
    /// and a virtual disk read by eight threads finished a cold 250k-file scan in about half the time of two
    /// (docs/benchmarks.md, #17); a warm scan loses nothing, its threads sharing the processors.
    /// </summary>
    internal static int DefaultDegreeOfParallelism { get; } = Math.Min(32, Math.Max(4, 4 * Environment.ProcessorCount));

    public IProgress<ScanProgress>? Progress { get; init; }
    public IProgress<ScanError>? ErrorCallback { get; init; }
    public Microsoft.Extensions.Logging.ILogger? Logger { get; init; }

    public required IFileEnumerator Enumerator { get; init; }

    public required Topology.IDriveTopology Topology { get; init; }

    public int ChunkSize { get; init; } = 256 * 1024;

    public BufferPool Buffers { get; init; } = BufferPool.Shared;

    /// <summary>Where rescans find what earlier scans learned, if anywhere.</summary>
    public Caching.HashCache? Cache { get; init; }

    /// <summary>Where the scan's files go to be matched with other machines', if anywhere, and under which machine name.</summary>
    public (Catalog.FileCatalog Store, string Machine)? Catalog { get; init; }
}
