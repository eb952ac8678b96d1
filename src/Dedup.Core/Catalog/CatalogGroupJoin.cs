using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Catalog;

/// <summary>
/// Makes a catalog scan's groups across machines: one group per content. A catalog group whose content the scan also
/// found among its own files (a group it held back, <see cref="CatalogSession.Hold"/>) becomes that group with the other
/// machines' files added; any other one is reported as the catalog gives it. Every file not compared byte for byte
/// here is <see cref="DuplicateFile.MatchedBySha256"/>.
/// </summary>
/// <param name="machine">The scanning machine.</param>
/// <param name="rows">The scan's rows: its own files of a catalog group are named from them.</param>
/// <param name="held">The scan's own groups held back; each one joined is replaced in place.</param>
internal sealed class CatalogGroupJoin(string machine, CatalogRows rows, List<DuplicateGroup> held)
{
    private readonly Dictionary<ReadOnlyMemory<byte>, AbsolutePath?> _folders = new(SameBytes.Instance);
    private Dictionary<FileIdentity, int>? _heldByIdentity;

    /// <summary>Groups joined with files of other machines, and catalog groups reported alone.</summary>
    public int AcrossMachines { get; private set; }

    /// <summary>The held groups (joined where the catalog had their content), then the catalog's other groups.</summary>
    public List<DuplicateGroup> Join(IReadOnlyList<CatalogGroup> found)
    {
        var alone = new List<DuplicateGroup>();
        var joined = new bool[held.Count];
        foreach (var group in found)
        {
            if (ToGroup(group, out var heldIndex) is not { } files)
            {
                continue;
            }

            if (heldIndex < 0)
            {
                // No roots: none of its files were compared here, so none is this machine's to act on.
                alone.Add(new DuplicateGroup(group.Length, files, verifiedByBytes: false) { Sha256 = group.Sha256 });
                continue;
            }

            var local = held[heldIndex];
            files.AddRange(local.Files);
            SortFiles(files);
            // The local files stay as compared (verified or not, the scan's roots: local actions act on them alone).
            held[heldIndex] = local with { Files = files, Sha256 = group.Sha256 };
            joined[heldIndex] = true;
        }

        AcrossMachines = alone.Count + joined.Count(static j => j);
        var groups = new List<DuplicateGroup>(held.Count + alone.Count);
        groups.AddRange(held);
        groups.AddRange(alone);
        return groups;
    }

    /// <summary>
    /// The files a catalog group adds (all <see cref="DuplicateFile.MatchedBySha256"/>), and the held group holding its
    /// content on this machine (<paramref name="heldIndex"/>, -1 for none); <see langword="null"/> when it adds no file
    /// of another machine, or is fewer than two files without a held group.
    /// </summary>
    /// <remarks>
    /// One pass over the files (sorted by machine, then path), no LINQ: a fleet's group read holds a group for nearly
    /// every file. Names of one file (machine and identity) are folded as hard links; this machine's files are named from
    /// the scan's own rows, not from the paths the catalog sends (it need send none).
    /// </remarks>
    private List<DuplicateFile>? ToGroup(CatalogGroup group, out int heldIndex)
    {
        heldIndex = -1;
        var matches = group.Files;
        var others = false;
        for (var i = 0; i < matches.Count && !others; i++)
        {
            others = !string.Equals(matches[i].Machine, machine, StringComparison.Ordinal);
        }

        if (!others || matches.Count < 2)
        {
            return null;
        }

        // This machine's identities in the group: one in most groups, so a set only from the second on (a set kept
        // across groups would clear its largest group's buckets for every group after it).
        HashSet<FileIdentity>? own = null;
        FileIdentity? firstOwn = null;
        var files = new List<(CatalogMatch First, List<AbsolutePath> Names)>(matches.Count);
        foreach (var match in matches)
        {
            if (string.Equals(match.Machine, machine, StringComparison.Ordinal))
            {
                // This scan's own file: in a group it found itself (compared there, so not added again), or named from
                // its listing by the whole stamp (the catalog need not send the paths it has from this scan), once per
                // identity whatever the catalog sent.
                var identity = match.Stamp.Identity;
                if (HeldIndexOf(identity) is { } index)
                {
                    heldIndex = heldIndex < 0 ? index : heldIndex;
                    continue;
                }

                bool fresh;
                if (firstOwn is not { } seen)
                {
                    (firstOwn, fresh) = (identity, true);
                }
                else
                {
                    fresh = (own ??= [seen]).Add(identity);
                }

                if (fresh && rows.NamesOf(match.Stamp) is { Count: > 0 } names)
                {
                    files.Add((match, names));
                }

                continue;
            }

            if (TryParse(match.Path, _folders) is not { } path)
            {
                continue;
            }

            var same = -1;
            for (var k = files.Count - 1; k >= 0 && same < 0 && string.Equals(files[k].First.Machine, match.Machine, StringComparison.Ordinal); k--)
            {
                same = files[k].First.Stamp.Identity == match.Stamp.Identity ? k : -1;
            }

            if (same >= 0)
            {
                files[same].Names.Add(path);
            }
            else
            {
                files.Add((match, [path]));
            }
        }

        var reported = new List<DuplicateFile>(files.Count + 1);
        var ownOnly = true;
        foreach (var (first, names) in files)
        {
            names.Sort();
            var stamp = first.Stamp;
            reported.Add(new DuplicateFile(names[0], names.GetRange(1, names.Count - 1), stamp.Identity, stamp.Length, names.Count, FileTable.ToDateTime(stamp.LastWriteTimeNs))
            {
                LastChangeTimeUtc = stamp.ChangeTimeNs == 0 ? DateTime.MinValue : FileTable.ToDateTime(stamp.ChangeTimeNs),
                Machine = first.Machine,
                MatchedBySha256 = true,
            });
            ownOnly &= string.Equals(first.Machine, machine, StringComparison.Ordinal);
        }

        if (ownOnly || (heldIndex < 0 && reported.Count < 2))
        {
            return null;
        }

        SortFiles(reported);
        return reported;
    }

    /// <summary>The held group holding the file, if any; the first call indexes them.</summary>
    private int? HeldIndexOf(FileIdentity identity)
    {
        if (held.Count == 0)
        {
            return null;
        }

        if (_heldByIdentity is null)
        {
            _heldByIdentity = [];
            for (var i = 0; i < held.Count; i++)
            {
                foreach (var file in held[i].Files)
                {
                    _heldByIdentity[file.Identity] = i;
                }
            }
        }

        return _heldByIdentity.TryGetValue(identity, out var index) ? index : null;
    }

    /// <summary>By path, then machine: the order of a scan's groups.</summary>
    private static void SortFiles(List<DuplicateFile> files) =>
        files.Sort(static (a, b) =>
        {
            var byPath = a.Path.CompareTo(b.Path);
            return byPath != 0 ? byPath : string.CompareOrdinal(a.Machine, b.Machine);
        });

    /// <summary>
    /// A path of some machine as this platform's path; <see langword="null"/> when it is not one (another platform's).
    /// Folders are parsed once and shared (a group read can hold every file of several machines).
    /// </summary>
    /// <remarks>
    /// Split at the last separator byte and looked up by the folder's bytes: only a folder seen for the first time is
    /// turned into text, and per file only its name is (measured in a fleet scan of 250k files matched on another
    /// machine: the whole path's text and the folder's substring per file were a third of the groups' making). A
    /// separator byte is always the separator character and the names' text is made byte by byte (UTF-8 sequences and
    /// escaped bytes never span a separator), so the parts are those the whole path's text splits into.
    /// </remarks>
    private static AbsolutePath? TryParse(ReadOnlyMemory<byte> path, Dictionary<ReadOnlyMemory<byte>, AbsolutePath?> folders)
    {
        var bytes = path.Span;
        var slash = bytes.LastIndexOf((byte)Path.DirectorySeparatorChar);
        if (slash < 0 || slash == bytes.Length - 1)
        {
            return null; // e.g. a Windows path seen on Linux: Parse would resolve it against the current folder
        }

        var folderBytes = path.Slice(0, Math.Max(slash, 1)); // a file at the root: the folder "/"
        if (!folders.TryGetValue(folderBytes, out var folder))
        {
            var folderText = KernelNames.GetString(folderBytes.Span);
            folder = null;
            if (Path.IsPathRooted(folderText))
            {
                try
                {
                    folder = AbsolutePath.Parse(folderText);
                }
                catch (ArgumentException)
                {
                    folder = null;
                }
            }

            folders[folderBytes] = folder;
        }

        if (folder is null)
        {
            return null;
        }

        var name = KernelNames.GetString(bytes.Slice(slash + 1));
        return name is "." or ".." ? null : folder.Child(name);
    }

    /// <summary>Byte strings compared by content.</summary>
    private sealed class SameBytes : IEqualityComparer<ReadOnlyMemory<byte>>
    {
        public static readonly SameBytes Instance = new();

        public bool Equals(ReadOnlyMemory<byte> x, ReadOnlyMemory<byte> y) => x.Span.SequenceEqual(y.Span);

        public int GetHashCode(ReadOnlyMemory<byte> obj)
        {
#if NET
            var hash = new HashCode();
            hash.AddBytes(obj.Span);
            return hash.ToHashCode();
#else
            // FNV-1a
            var hash = 2166136261u;
            foreach (var b in obj.Span)
            {
                hash = unchecked((hash ^ b) * 16777619u);
            }

            return unchecked((int)hash);
#endif
        }
    }
}
