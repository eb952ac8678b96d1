using Dedup.Core.Comparison;

namespace Dedup.Core;

/// <summary>
/// A finder's settings as plain data, for binding from configuration (for example an <c>appsettings.json</c> section
/// "Dedup") and applying with <see cref="DuplicateFinderBuilderExtensions.Configure"/>. Everything is checked when the
/// builder's <see cref="DuplicateFinderBuilder.Build"/> runs, with the same errors as the fluent methods.
/// </summary>
/// <example>
/// <code>
/// { "Dedup": { "Roots": [ "/srv/backup" ], "Exclude": [ "**/.cache/**" ], "MinSize": 4096, "Comparer": "hybrid" } }
/// </code>
/// </example>
public sealed class ScanOptions
{
    /// <summary>The folders to scan. They need not exist yet: each scan checks them when it starts.</summary>
    public IList<string> Roots { get; } = new List<string>();

    /// <summary>Include globs (relative to the root, <c>/</c> separators); none means every file.</summary>
    public IList<string> Include { get; } = new List<string>();

    /// <summary>Exclude globs; a matching folder is not entered.</summary>
    public IList<string> Exclude { get; } = new List<string>();

    /// <summary>Smallest file size considered, in bytes (default 0).</summary>
    public long MinSize { get; set; }

    /// <summary>Largest file size considered, in bytes; no limit when <see langword="null"/>.</summary>
    public long? MaxSize { get; set; }

    /// <summary>Whether names starting with a dot are scanned (default <see langword="true"/>).</summary>
    public bool IncludeHidden { get; set; } = true;

    /// <summary>Whether empty files are reported as duplicates of each other (default <see langword="false"/>).</summary>
    public bool IncludeEmptyFiles { get; set; }

    /// <summary>Whether symbolic links are followed (default <see langword="false"/>).</summary>
    public bool FollowSymbolicLinks { get; set; }

    /// <summary>Whether the scan stays on each root's file system (default <see langword="false"/>).</summary>
    public bool StayOnOneFileSystem { get; set; }

    /// <summary>The comparer strategy by name: <c>hybrid</c> (default), <c>bytewise</c>, <c>vectorized</c> or <c>hash</c>.</summary>
    public string Comparer { get; set; } = "hybrid";

    /// <summary>The hash used where hashes are compared (default <see cref="DuplicateHashAlgorithm.XxHash128"/>).</summary>
    public DuplicateHashAlgorithm HashAlgorithm { get; set; } = DuplicateHashAlgorithm.XxHash128;

    /// <summary>Whether equal 128-bit hashes are accepted without comparing bytes (default <see langword="false"/>).</summary>
    public bool TrustHashes { get; set; }

    /// <summary>Whether media files are compared by payload, ignoring tags (default <see langword="false"/>).</summary>
    public bool MediaMode { get; set; }

    /// <summary>
    /// How many threads list folders and read files at once, from 1 to <see cref="DuplicateFinderBuilder.MaxDegreeOfParallelismLimit"/>
    /// (1024); four per processor (4 to 32) when <see langword="null"/>.
    /// </summary>
    public int? MaxDegreeOfParallelism { get; set; }
}

/// <summary>Applies plain settings to a <see cref="DuplicateFinderBuilder"/>.</summary>
public static class DuplicateFinderBuilderExtensions
{
    /// <summary>Applies every setting of <paramref name="options"/> to <paramref name="builder"/> (roots and globs are added).</summary>
    /// <param name="builder">The builder.</param>
    /// <param name="options">The settings, for example bound from configuration.</param>
    /// <returns>The builder.</returns>
    /// <exception cref="ArgumentException">The comparer name is unknown.</exception>
    public static DuplicateFinderBuilder Configure(this DuplicateFinderBuilder builder, ScanOptions options)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(options);
        builder.AddRoots(options.Roots)
            .WithMinSize(options.MinSize)
            .IncludeHidden(options.IncludeHidden)
            .IncludeEmptyFiles(options.IncludeEmptyFiles)
            .FollowSymbolicLinks(options.FollowSymbolicLinks)
            .StayOnOneFileSystem(options.StayOnOneFileSystem)
            .UseComparer(ComparerStrategies.FromName(options.Comparer))
            .UseHashAlgorithm(options.HashAlgorithm)
            .TrustHashes(options.TrustHashes)
            .UseMediaMode(options.MediaMode);
        foreach (var glob in options.Include)
        {
            builder.Include(glob);
        }

        foreach (var glob in options.Exclude)
        {
            builder.Exclude(glob);
        }

        if (options.MaxSize is { } maxSize)
        {
            builder.WithMaxSize(maxSize);
        }

        if (options.MaxDegreeOfParallelism is { } degree)
        {
            builder.WithMaxDegreeOfParallelism(degree);
        }

        return builder;
    }
}
