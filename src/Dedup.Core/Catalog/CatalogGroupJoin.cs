using System.Collections.Concurrent;
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
/// <param name="degree">How many threads make the groups (the scan's degree of parallelism).</param>
/// <param name="own">This machine's files by content, when the catalog's groups hold only other machines' files; <see langword="null"/>: they hold this machine's too.</param>
internal sealed partial class CatalogGroupJoin(string machine, CatalogRows rows, List<DuplicateGroup> held, int degree, CatalogOwnFiles? own = null)
{
    // One per thread making groups: its folders and the files of the group it makes (ParallelInOrder).
    private readonly ConcurrentBag<Maker> _makers = [];
    private Dictionary<FileIdentity, int>? _heldByIdentity;
    private IReadOnlyList<DuplicateFile>[]? _heldFiles;
    private int _acrossMachines;

    /// <summary>Groups joined with files of other machines, and catalog groups reported alone, so far.</summary>
    public int AcrossMachines => Volatile.Read(ref _acrossMachines);

    /// <summary>
    /// The held groups (joined where the catalog had their content), then the catalog's other groups; enumerate once.
    /// </summary>
    /// <remarks>
    /// The catalog's other groups are made as they are reached, a window at a time on the scan's degree of parallelism
    /// (<see cref="ParallelInOrder"/>): a fleet's read holds a group for nearly every file, and a consumer that keeps none
    /// (the CLI keeps its own compact copy) lets each go young instead of the scan holding all of them (measured at 250k
    /// files matched on one other machine: the garbage collector's marking and copying of every group made was a third of
    /// the time after the compare stage).
    /// </remarks>
    public IEnumerable<DuplicateGroup> Join(IReadOnlyList<CatalogGroup> found)
    {
        // Both indexes are made before the threads read them.
        IndexHeld();
        rows.IndexNames();
        own?.Seal(rows.Contains);
        var alone = new List<CatalogGroup>();
        var joined = new bool[held.Count];
        var index = 0;
        foreach (var (files, heldIndex) in ParallelInOrder.Map(found, degree, _makers, () => new Maker(machine, rows, own, this), static (maker, group) => maker.JoinHeld(group)))
        {
            var group = found[index++];
            if (heldIndex == Alone)
            {
                alone.Add(group);
            }
            else if (files is not null)
            {
                var local = held[heldIndex];
                var all = files;
                if (joined[heldIndex])
                {
                    // A second catalog group for one held group (one content: not expected), every file kept once.
                    all = [.. local.Files.Union(files)];
                    SortFiles(all);
                }

                // The local files stay as compared (verified or not, the scan's roots: local actions act on them alone);
                // the maker added them and sorted the group.
                held[heldIndex] = local with { Files = all, Sha256 = group.Sha256 };
                joined[heldIndex] = true;
            }
        }

        Volatile.Write(ref _acrossMachines, joined.Count(static j => j));
        foreach (var group in held)
        {
            yield return group;
        }

        // No roots: none of its files were compared here, so none is this machine's to act on. Made on the threads making
        // the groups, not on this one, which hands each on.
        foreach (var group in ParallelInOrder.Map(alone, degree, _makers, () => new Maker(machine, rows, own, this), static (maker, group) =>
            maker.ToGroup(group) is { } files ? new DuplicateGroup(group.Length, files, verifiedByBytes: false) { Sha256 = group.Sha256 } : null))
        {
            if (group is not null)
            {
                Interlocked.Increment(ref _acrossMachines);
                yield return group;
            }
        }
    }

    /// <summary>Marks a catalog group none of whose files a held group holds.</summary>
    private const int Alone = -2;

    /// <summary>Indexes the held groups by their files' identities (read by every thread making groups).</summary>
    private void IndexHeld()
    {
        if (_heldByIdentity is not null || held.Count == 0)
        {
            return;
        }

        _heldByIdentity = [];
        _heldFiles = new IReadOnlyList<DuplicateFile>[held.Count];
        for (var i = 0; i < held.Count; i++)
        {
            _heldFiles[i] = held[i].Files;
            foreach (var file in held[i].Files)
            {
                _heldByIdentity[file.Identity] = i;
            }
        }
    }

    /// <summary>The files of a held group as the scan found it (read by the threads making groups, while this one replaces the group).</summary>
    private IReadOnlyList<DuplicateFile> HeldFiles(int index) => _heldFiles![index];

    /// <summary>The held group holding the file, if any (<see cref="IndexHeld"/> ran).</summary>
    private int? HeldIndexOf(FileIdentity identity) =>
        _heldByIdentity is { } index && index.TryGetValue(identity, out var i) ? i : null;

    /// <summary>By path, then machine: the order of a scan's groups.</summary>
    private static void SortFiles(List<DuplicateFile> files) =>
        files.Sort(static (a, b) =>
        {
            var byPath = a.Path.CompareTo(b.Path);
            return byPath != 0 ? byPath : string.CompareOrdinal(a.Machine, b.Machine);
        });
}
