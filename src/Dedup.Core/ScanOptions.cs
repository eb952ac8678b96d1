using Dedup.Core.Comparison;
using Dedup.Core.Topology;

namespace Dedup.Core;

/// <summary>
/// Every plain setting of a finder, in one type: what the fluent methods of <see cref="DuplicateFinderBuilder"/> set
/// (<see cref="DuplicateFinderBuilder.Options"/>), what a host binds from configuration (for example an
/// <c>appsettings.json</c> section "Dedup") and what <see cref="DuplicateFinderBuilderExtensions.Configure"/> copies into
/// a builder. Services (logger, progress, cache, catalog, enumerator, a comparer object of your own...) are builder
/// methods, not settings. <see cref="Validate"/> lists every problem at once; <see cref="DuplicateFinderBuilder.Build"/>
/// runs the same checks.
/// </summary>
/// <example>
/// <code>
/// { "Dedup": { "Roots": [ "/srv/backup" ], "Exclude": [ "**/.cache/**" ], "MinSize": 4096, "Comparer": "hybrid",
///              "DriveKinds": [ { "Path": "/srv/backup", "Kind": "Hdd" } ] } }
/// </code>
/// </example>
public sealed class ScanOptions
{
    /// <summary>The folders (or, on Linux, files: see <see cref="DuplicateFinderBuilder.AddRoot"/>) to scan. They need not exist yet: each scan checks them when it starts.</summary>
    public IList<string> Roots { get; } = new List<string>();

    /// <summary>Include globs (relative to the root, <c>/</c> separators); none means every file.</summary>
    public IList<string> Include { get; } = new List<string>();

    /// <summary>Exclude globs; a matching folder is not entered.</summary>
    public IList<string> Exclude { get; } = new List<string>();

    /// <summary>
    /// Whether <see cref="Include"/> and <see cref="Exclude"/> match letters whatever their case (default
    /// <see langword="false"/>; see <see cref="DuplicateFinderBuilder.IgnoreGlobCase"/>).
    /// </summary>
    public bool IgnoreGlobCase { get; set; }

    /// <summary>Smallest file size considered, in bytes (default 0).</summary>
    public long MinSize { get; set; }

    /// <summary>Largest file size considered, in bytes; no limit when <see langword="null"/> (the default).</summary>
    public long? MaxSize { get; set; }

    /// <summary>Whether names starting with a dot are scanned (default <see langword="true"/>).</summary>
    public bool IncludeHidden { get; set; } = true;

    /// <summary>Whether empty files are reported as duplicates of each other (default <see langword="false"/>).</summary>
    public bool IncludeEmptyFiles { get; set; }

    /// <summary>Whether symbolic links are followed (default <see langword="false"/>).</summary>
    public bool FollowSymbolicLinks { get; set; }

    /// <summary>Whether the scan stays on each root's file system (default <see langword="false"/>).</summary>
    public bool StayOnOneFileSystem { get; set; }

    /// <summary>
    /// The comparer strategy by name: <c>hybrid</c> (default), <c>bytewise</c>, <c>vectorized</c> or <c>hash</c>
    /// (see <see cref="ComparerStrategies"/>). A strategy object of your own given to
    /// <see cref="DuplicateFinderBuilder.UseComparer"/> takes its place.
    /// </summary>
    public string Comparer { get; set; } = ComparerStrategies.Hybrid.Name;

    /// <summary>The hash used where hashes are compared (default <see cref="DuplicateHashAlgorithm.XxHash128"/>).</summary>
    public DuplicateHashAlgorithm HashAlgorithm { get; set; } = DuplicateHashAlgorithm.XxHash128;

    /// <summary>Whether equal 128-bit hashes are accepted without comparing bytes (default <see langword="false"/>).</summary>
    public bool TrustHashes { get; set; }

    /// <summary>Whether media files are compared by payload, ignoring tags (default <see langword="false"/>; see <see cref="DuplicateFinderBuilder.UseMediaMode"/>).</summary>
    public bool MediaMode { get; set; }

    /// <summary>Whether duplicate folders are reported too (default <see langword="false"/>; see <see cref="DuplicateFinderBuilder.UseFolderMode"/>).</summary>
    public bool FolderMode { get; set; }

    /// <summary>Folder mode compares the contents of folders ignoring names and layout (default <see langword="false"/>; see <see cref="DuplicateFinderBuilder.UseFolderMode"/>).</summary>
    public bool IgnoreFolderNames { get; set; }

    /// <summary>
    /// How many threads list folders and read files at once, from 1 to <see cref="DuplicateFinderBuilder.MaxDegreeOfParallelismLimit"/>
    /// (1024); four per processor (4 to 32) when <see langword="null"/>.
    /// </summary>
    public int? MaxDegreeOfParallelism { get; set; }

    /// <summary>
    /// Device kinds declared by path, overriding detection (see <see cref="DuplicateFinderBuilder.WithDriveKind"/>). The
    /// paths need not exist yet: each scan looks their devices up when it starts.
    /// </summary>
    public IList<DriveKindSetting> DriveKinds { get; } = new List<DriveKindSetting>();

    /// <summary>Four threads per processor, 4 to 32: the default of <see cref="MaxDegreeOfParallelism"/>.</summary>
    /// <remarks>
    /// fclones' default for SSDs: a cold scan spends its time waiting for reads, and a virtual disk read by eight
    /// threads finished a cold 250k-file scan in about half the time of two (docs/architecture.md, Enumerate); a warm scan
    /// loses nothing, its threads sharing the processors.
    /// </remarks>
    internal static int DefaultDegreeOfParallelism { get; } = Math.Min(32, Math.Max(4, 4 * Environment.ProcessorCount));

    /// <summary>
    /// Checks every setting without touching the disk (roots and drive-kind paths need not exist) and returns every
    /// problem found, each naming its setting, for example <c>MinSize is -1: the minimum size must not be negative.</c>
    /// </summary>
    /// <returns>The problems; empty when <see cref="DuplicateFinderBuilder.Build"/> would accept these settings.</returns>
    /// <remarks>
    /// Build also refuses what only the builder knows (folder mode with an enumerator of your own) and a root whose
    /// part up to its last <c>..</c> leads to no folder (see <see cref="Paths.AbsolutePath.Resolve"/>).
    /// </remarks>
    public IReadOnlyList<string> Validate() => ScanOptionsValidation.Problems(this).Select(p => p.Text).ToArray();

    /// <summary>Copies every setting of <paramref name="source"/> here: lists are appended to, a <see langword="null"/> limit leaves the current one.</summary>
    internal void CopyFrom(ScanOptions source)
    {
        AddAll(Roots, source.Roots);
        AddAll(Include, source.Include);
        AddAll(Exclude, source.Exclude);
        IgnoreGlobCase = source.IgnoreGlobCase;
        MinSize = source.MinSize;
        MaxSize = source.MaxSize ?? MaxSize;
        IncludeHidden = source.IncludeHidden;
        IncludeEmptyFiles = source.IncludeEmptyFiles;
        FollowSymbolicLinks = source.FollowSymbolicLinks;
        StayOnOneFileSystem = source.StayOnOneFileSystem;
        Comparer = source.Comparer;
        HashAlgorithm = source.HashAlgorithm;
        TrustHashes = source.TrustHashes;
        MediaMode = source.MediaMode;
        FolderMode = source.FolderMode;
        IgnoreFolderNames = source.IgnoreFolderNames;
        MaxDegreeOfParallelism = source.MaxDegreeOfParallelism ?? MaxDegreeOfParallelism;
        foreach (var setting in source.DriveKinds)
        {
            // A copy: the two option objects must not share a mutable entry.
            DriveKinds.Add(setting is null ? null! : new DriveKindSetting(setting.Path, setting.Kind));
        }
    }

    private static void AddAll(IList<string> target, IList<string> source)
    {
        foreach (var item in source)
        {
            target.Add(item);
        }
    }
}

/// <summary>Copies plain settings into a <see cref="DuplicateFinderBuilder"/>.</summary>
public static class DuplicateFinderBuilderExtensions
{
    /// <summary>
    /// Copies every setting of <paramref name="options"/> into <paramref name="builder"/>'s
    /// <see cref="DuplicateFinderBuilder.Options"/>: roots, globs and drive kinds are added, a <see langword="null"/>
    /// <see cref="ScanOptions.MaxSize"/> or <see cref="ScanOptions.MaxDegreeOfParallelism"/> leaves the builder's, and
    /// the comparer name replaces any comparer set before. Only the comparer name is checked here, as
    /// <see cref="DuplicateFinderBuilder.UseComparer"/> would; <see cref="DuplicateFinderBuilder.Build"/> lists every
    /// other problem.
    /// </summary>
    /// <param name="builder">The builder.</param>
    /// <param name="options">The settings, for example bound from configuration.</param>
    /// <returns>The builder.</returns>
    /// <exception cref="ArgumentException">The comparer name is unknown.</exception>
    public static DuplicateFinderBuilder Configure(this DuplicateFinderBuilder builder, ScanOptions options)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(options);
        _ = ComparerStrategies.FromName(options.Comparer); // at once, as before: the name is what was asked for
        builder.CopyFrom(options);
        return builder;
    }
}
