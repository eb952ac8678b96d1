using Dedup.Core;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Cli.Output;

/// <summary>
/// The groups of a scan, held until it ends so that the report can be written in its stable order
/// (<see cref="InOrder"/>). Held as plain data: a <see cref="DuplicateFile"/>, its path node and its name string
/// cost ~180 bytes per file (computed), this ~100 (a struct, the parent folder's node shared with the scan, the name's
/// characters in a shared buffer). On the 1 M-file tree (144k reported files) the RSS at the end of the scan fell from
/// 155 to 142 MiB (sampled every 50 ms, benchmarks/e2e/rss_sample.sh); the high-water mark less (#17). Each group is made again,
/// one at a time, when the report is written.
/// </summary>
internal sealed class HeldGroups
{
    // Chunks, not one growing array: doubling a 144k-entry array would briefly hold both copies.
    private const int FilesPerChunk = 4096;
    private const int CharsPerChunk = 32 * 1024;

    private const int GroupsPerChunk = 1024;

    private readonly List<HeldGroup[]> _groups = [];
    private int _groupCount;
    private readonly List<HeldFile[]> _files = [];
    private readonly List<char[]> _names = [];
    private int _fileCount;
    private int _nameEnd = CharsPerChunk; // no chunk yet: the first name starts one

    /// <summary>Number of groups held.</summary>
    public int Count => _groupCount;

    /// <summary>Keeps <paramref name="group"/> until the report is written.</summary>
    public void Add(DuplicateGroup group)
    {
        var files = group.Files;
        if (_groupCount % GroupsPerChunk == 0)
        {
            _groups.Add(new HeldGroup[GroupsPerChunk]);
        }

        _groups[_groupCount / GroupsPerChunk][_groupCount++ % GroupsPerChunk] = new HeldGroup(group.Size, group.WastedBytes, files[0].Path, _fileCount, files.Count, group.VerifiedByBytes, group.Match, group.Roots, group.Sha256);
        foreach (var file in files)
        {
            Add(file);
        }
    }

    /// <summary>
    /// The groups in the report's order (<c>--sort</c>), each made as it is reached. Groups come from the scan in
    /// thread-timing order; sorted, the same tree gives byte-identical reports (files within a group are in path order).
    /// </summary>
    public IEnumerable<DuplicateGroup> InOrder(string order)
    {
        // Group numbers are sorted, not the groups: no second copy of them at the end of the scan, when the RSS peaks
        // (1 M-file tree: a copy, and a list's doubled array, were ~5 MiB of it).
        var numbers = new int[_groupCount];
        for (var i = 0; i < numbers.Length; i++)
        {
            numbers[i] = i;
        }

        var compare = Order(order);
        Array.Sort(numbers, (a, b) => compare(Group(a), Group(b)));
        foreach (var number in numbers)
        {
            var key = Group(number);
            var files = new DuplicateFile[key.Count];
            for (var i = 0; i < files.Length; i++)
            {
                files[i] = Make(key.FirstFile + i);
            }

            yield return new DuplicateGroup(key.Size, files, key.VerifiedByBytes, key.Match) { Roots = key.Roots, Sha256 = key.Sha256 };
        }
    }

    private ref readonly HeldGroup Group(int number) => ref _groups[number / GroupsPerChunk][number % GroupsPerChunk];

    private static Comparison<HeldGroup> Order(string order)
    {
        Comparison<HeldGroup> primary = order switch
        {
            "size" => static (a, b) => b.Size.CompareTo(a.Size),
            "count" => static (a, b) => b.Count.CompareTo(a.Count),
            "path" => static (_, _) => 0,
            _ => static (a, b) => b.Wasted.CompareTo(a.Wasted),
        };

        // Paths are unique across a scan's own groups (a file is in one group), so the tie-break makes the order total;
        // with a catalog a file can also be in a group across machines, told apart by its digest.
        return (a, b) =>
        {
            var byKey = primary(a, b);
            if (byKey == 0)
            {
                byKey = a.FirstPath.CompareTo(b.FirstPath);
            }

            return byKey != 0 ? byKey : a.Sha256.Span.SequenceCompareTo(b.Sha256.Span);
        };
    }

    private void Add(DuplicateFile file)
    {
        // A path the scan made from a folder and a name is held as the two; anything else (a root given as a file, a
        // node of a derived type) is held whole.
        var path = file.Path;
        var (node, nameStart, nameLength) = path.Parent is not null && path.GetType() == typeof(AbsolutePath)
            ? (path.Parent, AddName(path.Name), path.Name.Length)
            : (path, 0, -1);

        if (_fileCount % FilesPerChunk == 0)
        {
            _files.Add(new HeldFile[FilesPerChunk]);
        }

        _files[_fileCount / FilesPerChunk][_fileCount % FilesPerChunk] = new HeldFile(
            node, nameStart, nameLength, file.OtherLinks.Count == 0 ? null : file.OtherLinks,
            file.Identity, file.Length, file.LinkCount, file.LastWriteTimeUtc, file.LastChangeTimeUtc, file.Machine, file.MatchedBySha256);
        _fileCount++;
    }

    /// <summary>Copies a name into the shared buffers; returns where it starts (chunk × size + offset).</summary>
    private int AddName(string name)
    {
        if (_nameEnd + name.Length > CharsPerChunk)
        {
            _names.Add(new char[Math.Max(CharsPerChunk, name.Length)]);
            _nameEnd = 0;
        }

        name.CopyTo(0, _names[^1], _nameEnd, name.Length);
        var start = ((_names.Count - 1) * CharsPerChunk) + _nameEnd;
        _nameEnd += name.Length;
        return start;
    }

    private DuplicateFile Make(int index)
    {
        ref readonly var f = ref _files[index / FilesPerChunk][index % FilesPerChunk];
        var path = f.NameLength < 0
            ? f.Node
            : f.Node.Child(_names[f.NameStart / CharsPerChunk].AsSpan(f.NameStart % CharsPerChunk, f.NameLength));
        return new DuplicateFile(path, f.OtherLinks ?? [], f.Identity, f.Length, f.LinkCount, f.LastWriteTimeUtc)
        {
            LastChangeTimeUtc = f.LastChangeTimeUtc,
            Machine = f.Machine,
            MatchedBySha256 = f.MatchedBySha256,
        };
    }

    private readonly record struct HeldGroup(
        long Size, long Wasted, AbsolutePath FirstPath, int FirstFile, int Count, bool VerifiedByBytes, ContentMatch Match, IReadOnlyList<ScanRoot> Roots,
        ReadOnlyMemory<byte> Sha256);

    private readonly record struct HeldFile(
        AbsolutePath Node, int NameStart, int NameLength, IReadOnlyList<AbsolutePath>? OtherLinks,
        FileIdentity Identity, long Length, int LinkCount, DateTime LastWriteTimeUtc, DateTime LastChangeTimeUtc, string? Machine, bool MatchedBySha256);
}
