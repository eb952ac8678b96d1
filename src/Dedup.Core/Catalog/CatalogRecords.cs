using Dedup.Core.Enumeration;

namespace Dedup.Core.Catalog;

/// <summary>
/// One scanned file as the catalog stores it: the path's bytes exactly as the file system gave them (names on Linux
/// are bytes, not always UTF-8) and the file's stamp.
/// </summary>
/// <remarks>Record equality compares <see cref="Path"/> by reference, as for any <see cref="ReadOnlyMemory{T}"/>.</remarks>
public sealed record CatalogFile
{
    /// <summary>Creates a file entry.</summary>
    /// <param name="path">The path's bytes; not empty.</param>
    /// <param name="stamp">Identity, size and times as the scan read them.</param>
    /// <exception cref="ArgumentException"><paramref name="path"/> is empty or <paramref name="stamp"/> has a negative length.</exception>
    public CatalogFile(ReadOnlyMemory<byte> path, FileStamp stamp)
    {
        if (path.IsEmpty)
        {
            throw new ArgumentException("A catalog file needs a path.", nameof(path));
        }

        if (stamp.Length < 0)
        {
            throw new ArgumentException("A file's length cannot be negative.", nameof(stamp));
        }

        Path = path;
        Stamp = stamp;
    }

    /// <summary>The path's bytes.</summary>
    public ReadOnlyMemory<byte> Path { get; }

    /// <summary>Identity, size and times as the scan read them.</summary>
    public FileStamp Stamp { get; }
}

/// <summary>The SHA-256 of a file's whole content, for the file (of one machine) that carries <see cref="Stamp"/>.</summary>
public sealed record CatalogDigest
{
    /// <summary>The length of a SHA-256 digest in bytes.</summary>
    public const int Sha256Length = 32;

    /// <summary>Creates a digest entry.</summary>
    /// <param name="stamp">The stamp the file had when it was read; the digest is recorded only on rows with this exact stamp.</param>
    /// <param name="sha256">The 32-byte SHA-256 of the file's content.</param>
    /// <exception cref="ArgumentException"><paramref name="sha256"/> is not 32 bytes long.</exception>
    public CatalogDigest(FileStamp stamp, ReadOnlyMemory<byte> sha256)
    {
        if (sha256.Length != Sha256Length)
        {
            throw new ArgumentException($"A SHA-256 digest is {Sha256Length} bytes, not {sha256.Length}.", nameof(sha256));
        }

        Stamp = stamp;
        Sha256 = sha256;
    }

    /// <summary>The stamp the file had when it was read.</summary>
    public FileStamp Stamp { get; }

    /// <summary>The 32-byte SHA-256 of the file's content.</summary>
    public ReadOnlyMemory<byte> Sha256 { get; }
}

/// <summary>A file of some machine, as of that machine's last scan.</summary>
/// <param name="Machine">The machine's name.</param>
/// <param name="Path">The path's bytes on that machine.</param>
/// <param name="Stamp">The file's stamp on that machine.</param>
public sealed record CatalogMatch(string Machine, ReadOnlyMemory<byte> Path, FileStamp Stamp);

/// <summary>
/// Files of one or more machines with the same size and SHA-256: duplicates by digest, not verified byte by byte
/// (the files are on different machines).
/// </summary>
/// <param name="Length">The files' size in bytes.</param>
/// <param name="Sha256">Their common SHA-256.</param>
/// <param name="Files">Every file with that size and digest, ordered by machine name, then path bytes.</param>
public sealed record CatalogGroup(long Length, ReadOnlyMemory<byte> Sha256, IReadOnlyList<CatalogMatch> Files)
{
    /// <summary>Whether the group holds files of more than one machine.</summary>
    public bool SpansMachines
    {
        get
        {
            for (var i = 1; i < Files.Count; i++)
            {
                if (!string.Equals(Files[i].Machine, Files[0].Machine, StringComparison.Ordinal))
                {
                    return true;
                }
            }

            return false;
        }
    }
}

/// <summary>
/// What a catalog answered a scan's <see cref="FileCatalog.ExchangeDigestRequestsAsync"/>: the digests other machines
/// asked of this one, and those this one now waits for.
/// </summary>
public sealed record CatalogDigestRequests
{
    private readonly IReadOnlyCollection<long> _askedOfThisMachine = [];
    private readonly IReadOnlyDictionary<string, IReadOnlyCollection<long>> _pending = new Dictionary<string, IReadOnlyCollection<long>>();

    /// <summary>Nothing asked, nothing pending.</summary>
    public static CatalogDigestRequests None { get; } = new();

    /// <summary>
    /// The sizes whose digests other machines had asked this machine for (before this call): its files of those sizes
    /// had none when it last scanned, and other machines hold files of the same size.
    /// </summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public IReadOnlyCollection<long> AskedOfThisMachine
    {
        get => _askedOfThisMachine;
        init => _askedOfThisMachine = value ?? throw new ArgumentNullException(nameof(AskedOfThisMachine));
    }

    /// <summary>
    /// For each other machine (by name), the sizes of this machine's files for which that machine holds a file with no
    /// digest yet: the matches that may appear once it scans again. The catalog recorded these requests.
    /// </summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public IReadOnlyDictionary<string, IReadOnlyCollection<long>> Pending
    {
        get => _pending;
        init => _pending = value ?? throw new ArgumentNullException(nameof(Pending));
    }
}
