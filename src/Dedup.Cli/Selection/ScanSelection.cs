using System.CommandLine;
using Dedup.Core;
using Dedup.Core.Comparison;

namespace Dedup.Cli.Selection;

/// <summary>
/// Which files a scan considers and how it compares them: the options <c>find</c>, <c>link</c> and <c>delete</c> share,
/// so a filter that narrows a report narrows the action the same way.
/// </summary>
internal sealed class ScanSelection
{
    private readonly Option<long?> _minSize = new("--min-size") { Description = "Ignore files smaller than this (bytes, or with K/M/G/T).", CustomParser = NumberValues.ParseSize };
    private readonly Option<long?> _maxSize = new("--max-size") { Description = "Ignore files larger than this (bytes, or with K/M/G/T).", CustomParser = NumberValues.ParseSize };
    private readonly Option<string[]> _include = new("--include") { Description = "Only scan files matching this glob (repeatable).", AllowMultipleArgumentsPerToken = false };
    private readonly Option<string[]> _exclude = new("--exclude") { Description = "Skip files and folders matching this glob (repeatable).", AllowMultipleArgumentsPerToken = false };
    private readonly Option<bool> _ignoreCase = new("--ignore-case") { Description = "Match --include and --exclude globs whatever the letters' case (*.jpg takes IMG.JPG)." };
    private readonly Option<bool> _hidden = new("--hidden") { Description = "Also scan names starting with a dot (the CLI skips them unless this is given; the library scans them by default)." };
    private readonly Option<bool> _followSymlinks = new("--follow-symlinks") { Description = "Follow symbolic links (loops are detected)." };
    private readonly Option<bool> _oneFileSystem = new("--one-file-system") { Description = "Do not cross into other file systems." };
    private readonly Option<string> _strategy = new("--strategy") { Description = "Comparison: hybrid, hash, vectorized or bytewise.", DefaultValueFactory = _ => "hybrid" };
    private readonly Option<string> _hash = new("--hash") { Description = "Hash algorithm: xxh128, xxh3 or sha256.", DefaultValueFactory = _ => "xxh128" };
    private readonly Option<bool> _trustHashes = new("--trust-hashes") { Description = "Accept equal 128-bit hashes without comparing bytes." };
    private readonly Option<bool> _empty = new("--empty") { Description = "Report empty files as duplicates." };
    /// <summary>The <c>--media</c> option, for commands that check it against their own.</summary>
    public Option<bool> Media => _media;

    private readonly Option<bool> _media = new("--media") { Description = "Compare MP3, FLAC, JPEG, PNG, WAV, WebP and MP4 files by media payload, ignoring tags." };
    private readonly Option<int?> _threads = new("--threads") { Description = "How many threads list folders and read files at once, 1 to 1024 (default: four per processor, 4 to 32; a rotational disk is still read by one at a time).", CustomParser = NumberValues.ParseThreads };

    public ScanSelection()
    {
        _strategy.AcceptOnlyFromAmong("hybrid", "hash", "vectorized", "bytewise");
        _hash.AcceptOnlyFromAmong("xxh128", "xxh3", "sha256");
    }

    private Option[] All => [_minSize, _maxSize, _include, _exclude, _ignoreCase, _hidden, _followSymlinks, _oneFileSystem, _strategy, _hash, _trustHashes, _empty, _media, _threads];

    public void AddTo(Command command)
    {
        foreach (var option in All)
        {
            command.Options.Add(option);
        }
    }

    /// <summary>The first selection option given explicitly on the command line, or <see langword="null"/>.</summary>
    public string? FirstGiven(ParseResult result) =>
        All.FirstOrDefault(o => result.GetResult(o) is { Implicit: false })?.Name;

    /// <summary>A usage problem the options show only together (the library would word it for programmers), or <see langword="null"/>.</summary>
    public string? Problem(ParseResult result) =>
        result.GetValue(_minSize) is { } min && result.GetValue(_maxSize) is { } max && max < min
            ? $"--max-size ({max} bytes) is smaller than --min-size ({min} bytes)"
            : result.GetValue(_trustHashes) && result.GetValue(_hash) == "xxh3"
                ? "--trust-hashes needs a 128-bit hash: use --hash xxh128 or sha256, not xxh3"
                : null;

    /// <summary>The <c>warning: …</c> lines for include and exclude globs that match nothing under <paramref name="roots"/> (<see cref="PatternCheck"/>).</summary>
    public IEnumerable<string> Warnings(ParseResult result, IReadOnlyList<string> roots) =>
        PatternCheck.Warnings("--include", result.GetValue(_include) ?? [], roots, result.GetValue(_ignoreCase))
            .Concat(PatternCheck.Warnings("--exclude", result.GetValue(_exclude) ?? [], roots, result.GetValue(_ignoreCase)));

    /// <summary>The settings for <paramref name="roots"/> with every selection option of <paramref name="result"/>: what the library's configuration binding fills too.</summary>
    public ScanOptions CreateOptions(ParseResult result, IEnumerable<string> roots)
    {
        var options = new ScanOptions
        {
            MinSize = result.GetValue(_minSize) ?? 0,
            MaxSize = result.GetValue(_maxSize),
            IgnoreGlobCase = result.GetValue(_ignoreCase),
            IncludeHidden = result.GetValue(_hidden),
            FollowSymbolicLinks = result.GetValue(_followSymlinks),
            StayOnOneFileSystem = result.GetValue(_oneFileSystem),
            IncludeEmptyFiles = result.GetValue(_empty),
            MediaMode = result.GetValue(_media),
            Comparer = result.GetValue(_strategy)!,
            HashAlgorithm = result.GetValue(_hash) switch
            {
                "xxh3" => DuplicateHashAlgorithm.XxHash3,
                "sha256" => DuplicateHashAlgorithm.Sha256,
                _ => DuplicateHashAlgorithm.XxHash128,
            },
            TrustHashes = result.GetValue(_trustHashes),
            MaxDegreeOfParallelism = result.GetValue(_threads),
        };
        AddAll(options.Roots, roots);
        AddAll(options.Include, result.GetValue(_include) ?? []);
        AddAll(options.Exclude, result.GetValue(_exclude) ?? []);
        return options;
    }

    private static void AddAll(IList<string> target, IEnumerable<string> items)
    {
        foreach (var item in items)
        {
            target.Add(item);
        }
    }
}
