using Dedup.Core.Caching;
using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Pooling;
using Dedup.Core.Reporting;
using Dedup.Core.Topology;
using Microsoft.Extensions.Logging;

namespace Dedup.Core;

/// <summary>
/// Configures a <see cref="DuplicateFinder"/> fluently; <see cref="Build"/> validates everything and
/// returns an immutable, reusable finder.
/// </summary>
/// <example>
/// <code>
/// var finder = new DuplicateFinderBuilder()
///     .AddRoot("/photos").AddRoot("/backup/photos")
///     .Exclude("**/.cache/**")
///     .WithMinSize(1024)
///     .Build();
/// await foreach (var group in finder.FindAsync()) { ... }
/// </code>
/// </example>
public sealed class DuplicateFinderBuilder
{
    /// <summary>
    /// The most threads <see cref="WithMaxDegreeOfParallelism"/> accepts: each is a real thread with its own stack and
    /// buffers, and beyond a few hundred they only cost memory and start-up time (20,000 took 84 seconds for five files,
    /// 100,000 ran out of memory).
    /// </summary>
    public const int MaxDegreeOfParallelismLimit = 1024;

    private IComparerStrategy? _customStrategy;
    private IProgress<ScanProgress>? _progress;
    private IProgress<ScanError>? _errors;
    private ILogger? _logger;
    private IFileEnumerator? _enumerator;
    private BufferPool? _buffers;
    private IDriveTopology? _topology;
    private HashCache? _cache;
    private bool _cacheRequired;
    private (Catalog.FileCatalog, string)? _catalog;

    /// <summary>
    /// The settings this builder holds: its fluent methods set them, <see cref="DuplicateFinderBuilderExtensions.Configure"/>
    /// copies into them, and they may be read or set here directly. <see cref="Build"/> checks them then and copies
    /// them, so a later change affects only finders built later.
    /// </summary>
    public ScanOptions Options { get; } = new();

    /// <summary>Adds a folder (or, on Linux, a file) to scan.</summary>
    /// <param name="path">
    /// An existing folder, or on Linux a regular file, compared with the other roots' files (jdupes, fdupes and rmlint
    /// accept files too): actions may then touch that one name in its folder, nothing beside it. Not in folder mode. A
    /// link to a file is a root only when links are followed; a FIFO, socket or device is refused, never opened.
    /// Relative paths are resolved against the current directory, and a <c>..</c> as the kernel resolves it (see
    /// <see cref="AbsolutePath.Resolve"/>).
    /// </param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder AddRoot(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        Options.Roots.Add(path);
        return this;
    }

    /// <summary>Adds folders (or, on Linux, files) to scan, as <see cref="AddRoot"/> does.</summary>
    /// <param name="paths">Existing folders or files.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder AddRoots(IEnumerable<string> paths)
    {
        ArgumentNullException.ThrowIfNull(paths);
        foreach (var path in paths)
        {
            AddRoot(path);
        }

        return this;
    }

    /// <summary>Scans only files matching this glob (any of the include globs, if several).</summary>
    /// <param name="glob">A glob; without <c>/</c> it matches names, with <c>/</c> root-relative paths.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder Include(string glob)
    {
        ArgumentNullException.ThrowIfNull(glob);
        Options.Include.Add(glob);
        return this;
    }

    /// <summary>Skips files and folders matching this glob.</summary>
    /// <param name="glob">A glob; without <c>/</c> it matches names, with <c>/</c> root-relative paths.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder Exclude(string glob)
    {
        ArgumentNullException.ThrowIfNull(glob);
        Options.Exclude.Add(glob);
        return this;
    }

    /// <summary>
    /// Whether include and exclude globs match letters whatever their case (default: no): <c>*.jpg</c> then takes
    /// <c>IMG.JPG</c>. Ordinal and culture-free: ASCII letters, and beyond ASCII each character against its invariant
    /// upper case (É and é match; ß and SS, or é written as e plus an accent, do not).
    /// </summary>
    /// <param name="ignore">Ignore case in globs.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder IgnoreGlobCase(bool ignore = true)
    {
        Options.IgnoreGlobCase = ignore;
        return this;
    }

    /// <summary>Ignores files smaller than <paramref name="bytes"/>.</summary>
    /// <param name="bytes">The smallest size considered.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder WithMinSize(long bytes)
    {
        Options.MinSize = bytes;
        return this;
    }

    /// <summary>Ignores files larger than <paramref name="bytes"/>.</summary>
    /// <param name="bytes">The largest size considered.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder WithMaxSize(long bytes)
    {
        Options.MaxSize = bytes;
        return this;
    }

    /// <summary>Whether files and folders whose names start with a dot are scanned (default: yes).</summary>
    /// <param name="include">Scan hidden entries.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder IncludeHidden(bool include = true)
    {
        Options.IncludeHidden = include;
        return this;
    }

    /// <summary>Follows symbolic links to files and folders (default: no); loops are detected.</summary>
    /// <param name="follow">Follow links.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder FollowSymbolicLinks(bool follow = true)
    {
        Options.FollowSymbolicLinks = follow;
        return this;
    }

    /// <summary>Does not descend into folders on other file systems than their root's.</summary>
    /// <param name="stay">Stay on one file system.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder StayOnOneFileSystem(bool stay = true)
    {
        Options.StayOnOneFileSystem = stay;
        return this;
    }

    /// <summary>Reports empty files as duplicates of each other (default: no).</summary>
    /// <param name="include">Report empty files.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder IncludeEmptyFiles(bool include = true)
    {
        Options.IncludeEmptyFiles = include;
        return this;
    }

    /// <summary>Chooses how candidates are compared (default: <see cref="ComparerStrategies.Hybrid"/>).</summary>
    /// <param name="strategy">A strategy from <see cref="ComparerStrategies"/> or your own.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseComparer(IComparerStrategy strategy)
    {
        ArgumentNullException.ThrowIfNull(strategy);

        // A built-in strategy is a setting (Options.Comparer, bindable by name); an object of your own is a service.
        if (strategy.Name is { } name && ComparerStrategies.TryFromName(name) == strategy)
        {
            Options.Comparer = name;
            _customStrategy = null;
        }
        else
        {
            _customStrategy = strategy;
        }

        return this;
    }

    /// <summary>Chooses the hash used where content is hashed (default: XxHash128).</summary>
    /// <param name="algorithm">The algorithm.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseHashAlgorithm(DuplicateHashAlgorithm algorithm)
    {
        Options.HashAlgorithm = algorithm;
        return this;
    }

    /// <summary>
    /// Accepts equal 128-bit (or SHA-256) hashes as equal content, skipping the final byte comparison
    /// of hashed groups. Such groups report <see cref="DuplicateGroup.VerifiedByBytes"/> = <see langword="false"/>.
    /// </summary>
    /// <param name="trust">Trust hashes.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder TrustHashes(bool trust = true)
    {
        Options.TrustHashes = trust;
        return this;
    }

    /// <summary>
    /// Compares MP3, FLAC, JPEG, PNG, WAV, WebP and MP4/MOV files by their media payload, ignoring tags and
    /// metadata (the same song retagged, the same photo with edited EXIF). Formats are detected by content;
    /// other or malformed files are compared whole. Byte-identical files are found first, as without media
    /// mode, and reported as whole-file groups; one file of each such set, and each file of a unique size, is
    /// then opened once more to locate its payload, and sets with equal payloads are reported together as a
    /// <see cref="ContentMatch.MediaPayload"/> group of one file per set (the first by path; the set's other copies
    /// are in its whole-file group, the only group actions act on).
    /// </summary>
    /// <param name="enable">Use media mode.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseMediaMode(bool enable = true)
    {
        Options.MediaMode = enable;
        return this;
    }

    /// <summary>
    /// Folder mode: also finds duplicate folders — folders whose whole subtrees are equal — and reports each copied
    /// folder once (<see cref="DuplicateScan.FolderGroups"/>) instead of one group per file in it. By default two folders
    /// are equal when they hold the same relative names with byte-identical contents: empty files and empty
    /// sub-folders count, symbolic links are compared as links (name and target), never followed. Only the topmost
    /// duplicate folders are reported; the file groups the scan yields leave out the files inside the copies (every
    /// folder of a group but the first). Folders that are duplicates but for a few files are listed too, with what
    /// differs. Every file is byte-verified as in whole-file mode. See docs/folders.md.
    /// </summary>
    /// <param name="enable">Use folder mode.</param>
    /// <param name="ignoreNames">
    /// Compare folders by the multiset of file contents anywhere in their subtrees, ignoring names and layout
    /// (rmlint's default); empty folders then do not count, and no partial overlaps are listed.
    /// </param>
    /// <returns>This builder.</returns>
    /// <remarks>Needs the built-in file enumerator, and cannot be combined with <see cref="UseMediaMode"/>.</remarks>
    public DuplicateFinderBuilder UseFolderMode(bool enable = true, bool ignoreNames = false)
    {
        Options.FolderMode = enable;
        Options.IgnoreFolderNames = ignoreNames;
        return this;
    }

    /// <summary>
    /// Limits how many folders are listed and files read at once: the scan's thread count (default: four per processor,
    /// from 4 to 32, because a read of a file not in memory waits on the device, and SSDs and virtual disks answer
    /// several outstanding reads faster than one; a rotational disk is still read by one thread at a time).
    /// </summary>
    /// <param name="degree">From 1 to <see cref="MaxDegreeOfParallelismLimit"/> (1024); checked by <see cref="Build"/>.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder WithMaxDegreeOfParallelism(int degree)
    {
        Options.MaxDegreeOfParallelism = degree;
        return this;
    }

    /// <summary>Receives progress snapshots about ten times a second and once at the end.</summary>
    /// <param name="progress">The receiver.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder ReportProgress(IProgress<ScanProgress> progress)
    {
        ArgumentNullException.ThrowIfNull(progress);
        _progress = progress;
        return this;
    }

    /// <summary>
    /// Receives each per-path error (unreadable, vanished, changed, invalid name, link loop) as soon as a scan meets
    /// it; the errors are still collected in <see cref="ScanSummary.Errors"/>. A scan started with its own
    /// <see cref="ScanCallbacks"/> may replace it.
    /// </summary>
    /// <param name="errors">The receiver; called on the scan's threads.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder ReportErrors(IProgress<ScanError> errors)
    {
        ArgumentNullException.ThrowIfNull(errors);
        _errors = errors;
        return this;
    }

    /// <summary>
    /// Logs each scan's start and end (Information), each per-path error (Warning) and a missing root (Error), with
    /// stable event ids (100–105). Without a logger nothing is formatted.
    /// </summary>
    /// <param name="logger">The logger, for example <c>loggerFactory.CreateLogger("Dedup.Core")</c>.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseLogger(ILogger logger)
    {
        ArgumentNullException.ThrowIfNull(logger);
        _logger = logger;
        return this;
    }

    /// <summary>Replaces the folder scanner with your own source of files.</summary>
    /// <param name="enumerator">The enumerator.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseFileEnumerator(IFileEnumerator enumerator)
    {
        ArgumentNullException.ThrowIfNull(enumerator);
        _enumerator = enumerator;
        return this;
    }

    /// <summary>
    /// Reads through your own buffer pool instead of <see cref="BufferPool.Shared"/>: a host that scans now and then
    /// can give each finder a pool of its own (<see cref="BufferPool.Create"/>) and call
    /// <see cref="BufferPool.ReleaseRetainedResources"/> between scans, so idle buffers do not stay retained.
    /// </summary>
    /// <param name="pool">The pool every read buffer of the scan is rented from.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseBufferPool(BufferPool pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        _buffers = pool;
        return this;
    }

    /// <summary>
    /// Keeps what each scan learns in <paramref name="cache"/> (such as <c>SqliteHashCache</c> from the
    /// Dedup.Core.Sqlite package), so that a rescan of a tree that barely changed reads only what changed. Results stay
    /// exact: a cached key is used only while the file's whole stamp (device, inode, size, modification and change
    /// times) is unchanged, files are reported equal without reading only when their bytes were compared under those
    /// very stamps, and anything else is read again. A cache that cannot be used is a warning
    /// (<see cref="CacheStatistics.Warnings"/>), never a failed scan. See docs/cache.md.
    /// </summary>
    /// <param name="cache">The store; one may be shared by several finders and processes.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseCache(HashCache cache) => UseCache(cache, required: false);

    /// <summary>
    /// Keeps what each scan learns in <paramref name="cache"/>, as <see cref="UseCache(HashCache)"/> does; with
    /// <paramref name="required"/> set, a cache that cannot be read or saved (or that its store reports damaged) fails
    /// the scan with a <see cref="HashCacheException"/> holding the store's own exception, instead of being a warning:
    /// for a job whose run time depends on the cache, where reading everything again is worse than stopping.
    /// </summary>
    /// <param name="cache">The store; one may be shared by several finders and processes.</param>
    /// <param name="required">Whether a cache problem fails the scan.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseCache(HashCache cache, bool required)
    {
        ArgumentNullException.ThrowIfNull(cache);
        _cache = cache;
        _cacheRequired = required;
        return this;
    }

    /// <summary>
    /// Matches each scan's files with those of other machines in <paramref name="catalog"/> (such as
    /// <c>PostgresCatalog</c> from the Dedup.Core.PostgreSql package). At the size barrier every file the scan found
    /// replaces <paramref name="machine"/>'s files in the catalog; the scan computes the SHA-256 of the whole content of
    /// each file whose size another file of the catalog shares, records it, and reports its own groups (byte-verified, as
    /// without a catalog, each file's <see cref="DuplicateFile.Machine"/> set) and every group of the catalog that
    /// holds one of its files and files of other machines as of their last scans, one group per content
    /// (<see cref="DuplicateGroup.Sha256"/> set): the other machines' files matched by size and SHA-256
    /// (<see cref="DuplicateFile.MatchedBySha256"/>), added to the scan's own group of that content when it has one
    /// (whose files alone local actions act on); a group with fewer than two files compared here has no
    /// <see cref="DuplicateGroup.Roots"/>, so is not acted on. Its own groups of a size another machine holds are
    /// reported after the comparison, with the catalog's. A scan whose other machines have not hashed files of a size
    /// its files share says so (<see cref="Reporting.CatalogStatistics.PendingMatches"/>) and asks them to. A catalog that
    /// fails changes no local result: the error is in <see cref="Reporting.CatalogStatistics.Error"/>.
    /// </summary>
    /// <param name="catalog">The store, shared by the machines of a fleet.</param>
    /// <param name="machine">This machine's name in the catalog (such as <see cref="Environment.MachineName"/>).</param>
    /// <returns>This builder.</returns>
    /// <exception cref="ArgumentException"><paramref name="machine"/> is empty or white space.</exception>
    public DuplicateFinderBuilder UseCatalog(Catalog.FileCatalog catalog, string machine)
    {
        ArgumentNullException.ThrowIfNull(catalog);
        ArgumentNullException.ThrowIfNull(machine);
        if (string.IsNullOrWhiteSpace(machine))
        {
            throw new ArgumentException("A machine name must not be empty.", nameof(machine));
        }

        _catalog = (catalog, machine);
        return this;
    }

    /// <summary>Replaces the device detection (which decides per-device concurrency and read order).</summary>
    /// <param name="topology">The topology.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder UseDriveTopology(IDriveTopology topology)
    {
        ArgumentNullException.ThrowIfNull(topology);
        _topology = topology;
        return this;
    }

    /// <summary>Declares the kind of the device holding <paramref name="path"/>, overriding detection (virtual disks often misreport).</summary>
    /// <param name="path">
    /// A root or any path on the device. It need not exist yet: each scan looks its device up when it starts, and fails
    /// then, as for a missing root, if the path is not there.
    /// </param>
    /// <param name="kind">The kind to assume.</param>
    /// <returns>This builder.</returns>
    public DuplicateFinderBuilder WithDriveKind(string path, DriveKind kind)
    {
        ArgumentNullException.ThrowIfNull(path);
        Options.DriveKinds.Add(new DriveKindSetting(path, kind));
        return this;
    }

    /// <summary>Copies <paramref name="source"/> into <see cref="Options"/> (see <see cref="DuplicateFinderBuilderExtensions.Configure"/>).</summary>
    internal void CopyFrom(ScanOptions source)
    {
        Options.CopyFrom(source);
        _customStrategy = null; // the comparer name replaces any comparer set before, as UseComparer would
    }

    /// <summary>Validates the settings and creates the finder.</summary>
    /// <returns>An immutable finder that can run any number of scans.</returns>
    /// <exception cref="InvalidOperationException">No root was added (and nothing else is wrong).</exception>
    /// <exception cref="ArgumentException">
    /// A glob is malformed or an option is out of range; with several problems, one exception lists them all (the
    /// same texts as <see cref="ScanOptions.Validate"/>).
    /// </exception>
    /// <exception cref="DirectoryNotFoundException">
    /// A root's part up to its last <c>..</c> does not lead to a folder (what the root means cannot be told; see
    /// <see cref="AbsolutePath.Resolve"/>).
    /// </exception>
    /// <remarks>
    /// Nothing else is read from the disk here. Roots need not exist yet: each scan checks them when it starts
    /// (<see cref="DuplicateFinder.CheckRoots"/>); the paths given to <see cref="WithDriveKind"/> are looked up then too.
    /// A root holding <c>..</c> is resolved here, though, as the kernel resolves it.
    /// </remarks>
    public DuplicateFinder Build()
    {
        var problems = ScanOptionsValidation.Problems(Options);
        if (Options.FolderMode && _enumerator is not null and not ITableSource)
        {
            // Refused, not approximated: a folder is equal to another only with every entry, and a file list may leave
            // some out; a folder reported equal on its listed files alone would be deleted with the others.
            var reason = $"needs the built-in file enumerator, not {_enumerator.GetType().FullName}: it compares whole folders, so it lists every entry "
                + "of each, empty folders and links too; a file list may leave some out, and a folder would be reported equal to another without them.";
            problems.Add(new("FolderMode " + reason, () => new ArgumentException("Folder mode " + reason)));
        }

        if (problems.Count > 0)
        {
            throw ScanOptionsValidation.ToException(problems);
        }

        var roots = new List<AbsolutePath>(Options.Roots.Count);
        foreach (var root in Options.Roots)
        {
            // Whether the folder exists is checked when each scan starts (DuplicateFinder.CheckRoots), not here: a
            // service may build its finder before its backup disk is mounted. A ".." is resolved now, as the kernel
            // resolves it (after the links before it): read lexically, "l/.." would scan the folder holding the link.
            var parsed = AbsolutePath.Resolve(root);
            if (!roots.Contains(parsed))
            {
                roots.Add(parsed);
            }
        }

        return new BuiltDuplicateFinder(new DuplicateFinderOptions
        {
            Roots = roots,
            Includes = Options.Include.Select(g => GlobPattern.Parse(g, Options.IgnoreGlobCase)).ToArray(),
            Excludes = Options.Exclude.Select(g => GlobPattern.Parse(g, Options.IgnoreGlobCase)).ToArray(),
            MinSize = Options.MinSize,
            MaxSize = Options.MaxSize ?? long.MaxValue,
            IncludeHidden = Options.IncludeHidden,
            FollowSymbolicLinks = Options.FollowSymbolicLinks,
            StayOnOneFileSystem = Options.StayOnOneFileSystem,
            IncludeEmptyFiles = Options.IncludeEmptyFiles,
            Strategy = _customStrategy ?? ComparerStrategies.FromName(Options.Comparer),
            HashAlgorithm = Options.HashAlgorithm,
            TrustHashes = Options.TrustHashes,
            MediaMode = Options.MediaMode,
            FolderMode = Options.FolderMode,
            IgnoreFolderNames = Options.IgnoreFolderNames,
            MaxDegreeOfParallelism = Options.MaxDegreeOfParallelism ?? ScanOptions.DefaultDegreeOfParallelism,
            Progress = _progress,
            ErrorCallback = _errors,
            Logger = _logger,
            Enumerator = _enumerator ?? new ParallelFileEnumerator(),
            Buffers = _buffers ?? BufferPool.Shared,
            Topology = _topology ?? DriveTopology.CreateDefault(),

            // Made absolute now, against the current directory of the Build, but looked up when each scan starts.
            DriveKinds = Options.DriveKinds.Select(d => (Path.Combine(Environment.CurrentDirectory, d.Path), d.Kind)).ToArray(),
        }, new ScanStores { Cache = _cache, CacheRequired = _cacheRequired, Catalog = _catalog });
    }
}
