namespace Dedup.Core;

/// <summary>
/// Files whose contents are identical, each distinct file (identity) listed once. A record: two groups are equal
/// when every property is, the lists and the digest compared item by item, so a test can assert on a group it expects.
/// </summary>
public sealed record DuplicateGroup
{
    private readonly IReadOnlyList<DuplicateFile> _files = [];
    private readonly long _size;
    private readonly MediaFormat? _mediaFormat;

    /// <summary>
    /// Describes a group. Scans make these; the constructor is public so that code consuming results can be tested
    /// with results of its own (see also <see cref="DuplicateScan.FromResults(IEnumerable{DuplicateGroup}, Reporting.ScanSummary, IReadOnlyList{ScanRoot})"/>). Acting on such a group re-checks
    /// every file on disk, as for a scan's own groups.
    /// </summary>
    /// <param name="size">The compared length (each file's size for whole-file matches).</param>
    /// <param name="files">The distinct files, at least two.</param>
    /// <param name="verifiedByBytes">Whether every byte was compared.</param>
    /// <param name="match">Whole files or media payloads.</param>
    /// <exception cref="ArgumentNullException"><paramref name="files"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="files"/> holds fewer than two files.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is negative.</exception>
    public DuplicateGroup(long size, IReadOnlyList<DuplicateFile> files, bool verifiedByBytes, ContentMatch match = ContentMatch.WholeFile)
    {
        Size = size;
        Files = files;
        VerifiedByBytes = verifiedByBytes;
        Match = match;
    }

    /// <summary>
    /// Length of the content compared: each file's size, or with <see cref="Match"/> =
    /// <see cref="ContentMatch.MediaPayload"/> the payload's length (file sizes then differ).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">Set to a negative value.</exception>
    public long Size
    {
        get => _size;
        init => _size = value >= 0 ? value : throw new ArgumentOutOfRangeException(nameof(Size), value, "A group's size cannot be negative.");
    }

    /// <summary>Whether whole files or media payloads (tags ignored) were found equal.</summary>
    public ContentMatch Match { get; init; }

    /// <summary>
    /// The container whose payload was found equal when <see cref="Match"/> is <see cref="ContentMatch.MediaPayload"/>
    /// (every file of the group is of it, recognised by content); <see langword="null"/> for whole-file matches, where
    /// the files' format plays no part.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">Set to <see cref="global::Dedup.Core.MediaFormat.None"/>: a payload match has a format.</exception>
    public MediaFormat? MediaFormat
    {
        get => _mediaFormat;
        init => _mediaFormat = value != global::Dedup.Core.MediaFormat.None
            ? value
            : throw new ArgumentOutOfRangeException(nameof(MediaFormat), value, "A media format is a recognised container, not None; leave it null for whole-file matches.");
    }

    /// <summary>The distinct files, at least two, in path order.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">Set to fewer than two files: one file is no duplicate.</exception>
    public IReadOnlyList<DuplicateFile> Files
    {
        get => _files;
        init => _files = (value ?? throw new ArgumentNullException(nameof(Files))).Count >= 2
            ? value
            : throw new ArgumentException($"A group holds at least two files; this one has {value.Count}.", nameof(Files));
    }

    /// <summary>
    /// <see langword="true"/> when every byte was compared; <see langword="false"/> when the group was
    /// accepted on 128-bit hash equality because <see cref="DuplicateFinderBuilder.TrustHashes(bool)"/> was set. In a
    /// group across machines (<see cref="Sha256"/> set) it tells how the scanning machine's own files that are not
    /// <see cref="DuplicateFile.MatchedBySha256"/> were compared; <see langword="false"/> when there are fewer than two.
    /// </summary>
    public bool VerifiedByBytes { get; init; }

    /// <summary>
    /// The SHA-256 of the files' content when the group was found in a catalog (<see cref="DuplicateFinderBuilder.UseCatalog"/>)
    /// and holds files of other machines: one group per content, its files tagged by <see cref="DuplicateFile.Machine"/>;
    /// those matched by size and digest only are <see cref="DuplicateFile.MatchedBySha256"/>. When two or more of the
    /// scanning machine's files were compared with each other, <see cref="Roots"/> are the scan's and local actions act
    /// on those files alone; otherwise <see cref="Roots"/> is empty. Empty for every other group.
    /// </summary>
    public ReadOnlyMemory<byte> Sha256 { get; init; }

    /// <summary>
    /// The roots the group was found under, with the identities they had when the scan started (shared by every
    /// group of a scan): actions reach each file from its root without following links.
    /// </summary>
    /// <remarks>
    /// A group made with the constructor has none unless given here; acting on a group without a root holding its
    /// files is refused.
    /// </remarks>
    public IReadOnlyList<ScanRoot> Roots { get; init; } = [];

    /// <summary>
    /// Bytes freed by keeping one file: <c>Size × (Files.Count − 1)</c>; for media payload matches, the
    /// files' total size less the largest one.
    /// </summary>
    public long WastedBytes => Match == ContentMatch.WholeFile
        ? Size * (Files.Count - 1)
        : Files.Sum(f => f.Length) - Files.Max(f => f.Length);

    /// <summary>Whether <paramref name="other"/> describes the same group: equal sizes, kinds, formats and flags, the same files and roots in the same order, the same digest.</summary>
    /// <param name="other">The other group.</param>
    /// <returns><see langword="true"/> when every property is equal.</returns>
    public bool Equals(DuplicateGroup? other) =>
        ReferenceEquals(this, other)
        || (other is not null
            && Size == other.Size
            && Match == other.Match
            && MediaFormat == other.MediaFormat
            && VerifiedByBytes == other.VerifiedByBytes
            && Sha256.Span.SequenceEqual(other.Sha256.Span)
            && Files.SequenceEqual(other.Files)
            && Roots.SequenceEqual(other.Roots));

    /// <summary>
    /// One line for logs and the debugger: how many files, their size, the bytes wasted and the first two names as a
    /// text report shows them (control characters escaped, <see cref="Paths.PathText"/>), for example
    /// <c>3 files × 1.2 MiB, 2.4 MiB wasted: /a/x.jpg, /b/x.jpg, 1 more</c>; a payload match names its format
    /// (<c>2 files, Mp3 payload 3.0 MiB, …</c>) and a group not verified byte by byte says <c>(hash match)</c>.
    /// </summary>
    /// <returns>The line.</returns>
    public override string ToString()
    {
        var size = Reporting.ByteCount.Format(Size);
        var kind = Match == ContentMatch.WholeFile ? $"{Files.Count} files × {size}" : $"{Files.Count} files, {MediaFormat?.ToString() ?? "media"} payload {size}";
        var names = string.Join(", ", Files.Take(2).Select(static f => f.Path.ToDisplayString()));
        var more = Files.Count > 2 ? $", {Files.Count - 2} more" : string.Empty;
        var hash = VerifiedByBytes ? string.Empty : " (hash match)";
        return $"{kind}, {Reporting.ByteCount.Format(WastedBytes)} wasted{hash}: {names}{more}";
    }

    /// <summary>
    /// What a local action may act on: the group itself, or for a group across machines (<see cref="Sha256"/> set) its
    /// files compared on this machine (not <see cref="DuplicateFile.MatchedBySha256"/>, nor of another machine than
    /// theirs) as a group of their own; <see langword="null"/> when fewer than two are left.
    /// </summary>
    internal DuplicateGroup? LocalPart()
    {
        if (Sha256.IsEmpty)
        {
            return this;
        }

        var local = new List<DuplicateFile>(Files.Count);
        string? machine = null;
        foreach (var file in Files)
        {
            if (file.MatchedBySha256)
            {
                continue;
            }

            // The compared files are one machine's; a report that says otherwise is not acted on.
            if (machine is not null && !string.Equals(machine, file.Machine, StringComparison.Ordinal))
            {
                return null;
            }

            machine = file.Machine;
            local.Add(file);
        }

        return local.Count < 2 ? null : this with { Files = local, Sha256 = default };
    }

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(Size, Match, VerifiedByBytes, Files.Count, Files[0]);
}
