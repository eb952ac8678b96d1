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
/// <param name="held">The scan's own groups held back; each one joined is reported in the place of the catalog group of its content.</param>
/// <param name="degree">The scan's degree of parallelism: the groups are made on as many threads, at most one per processor.</param>
/// <param name="own">This machine's files by content, when the catalog's groups hold only other machines' files; <see langword="null"/>: they hold this machine's too.</param>
internal sealed partial class CatalogGroupJoin(string machine, CatalogRows rows, List<DuplicateGroup> held, int degree, CatalogOwnFiles? own = null)
{
    // One per thread making groups: the files of the group it makes (ParallelInOrder).
    private readonly ConcurrentBag<Maker> _makers = [];

    // The folders of the other machines' paths, shared by the makers: each made its own, and with one maker per thread
    // each folder's path was made once per thread (measured at 250k files matched on another machine: 8 makers, 686k
    // paths alive after the join, most of them folders parsed again).
    // Sized at the join's start for about one folder per two files of the read: grown from empty, its resizes were ~5 MiB
    // of the making's ~150 MiB (measured at 250k files matched on another machine, 90k folders).
    private ConcurrentDictionary<ReadOnlyMemory<byte>, AbsolutePath?> _folders = new(Maker.SameBytes.Instance);
    // This scan's folders: another machine's folder at the same path is made this scan's node (only read by the makers).
    // A fleet of one layout then shares its folders, and sorting a group's files by path compares names, not every
    // folder up to the root (measured at 250k files matched at the same paths on another machine: the sort's path
    // comparisons were ~0.1 s of the making's CPU).
    private Dictionary<AbsolutePath, AbsolutePath> _localFolders = [];
    private Dictionary<FileIdentity, int>? _heldByIdentity;
    private bool _prepared;
    private int _acrossMachines;

    /// <summary>Groups joined with files of other machines, and catalog groups reported alone, so far.</summary>
    public int AcrossMachines => Volatile.Read(ref _acrossMachines);

    /// <summary>
    /// The catalog's groups (one per content: <see cref="CatalogGroupMerge.OnePerContent"/>) as they are made, a held
    /// group in the place of the catalog group of its content (joined with the other machines' files), then the held
    /// groups the catalog had no content of; enumerate once.
    /// </summary>
    /// <remarks>
    /// One pass, a window at a time on as many threads as there are processors (<see cref="ParallelInOrder"/>: the
    /// making is CPU work, not the scan's reads), each group handed on as soon as it is made: a fleet's read holds a
    /// group for nearly every file, and a consumer that keeps none (the CLI keeps its own compact copy) lets each go
    /// young. Measured at 250k files matched on another machine: the joined groups, held until every catalog group had
    /// been seen, were 270k files alive at the end, copied by each collection they outlived.
    /// </remarks>
    public IEnumerable<DuplicateGroup> Join(IReadOnlyList<CatalogGroup> found)
    {
        // The indexes are made before the threads read them, and the folders' table before any maker is.
        var files = 0L;
        foreach (var group in found)
        {
            files += group.Files.Count;
        }

        _folders = new(Environment.ProcessorCount, (int)Math.Min(files / 2, 1 << 24), Maker.SameBytes.Instance);
        Prepare();
        var joined = new bool[held.Count];
        var threads = Math.Max(1, Math.Min(degree, Environment.ProcessorCount));
        foreach (var (group, heldIndex) in ParallelInOrder.Map(found, threads, _makers, () => new Maker(machine, rows, own, this), static (maker, group) => maker.Make(group)))
        {
            if (group is null)
            {
                continue;
            }

            if (heldIndex >= 0)
            {
                joined[heldIndex] = true;
            }

            Interlocked.Increment(ref _acrossMachines);
            yield return group;
        }

        for (var i = 0; i < held.Count; i++)
        {
            if (!joined[i])
            {
                yield return held[i];
            }
        }
    }

    /// <summary>
    /// Makes what the makers read that the catalog's groups do not change: this scan's folders, the held groups' and the
    /// rows' indexes, this machine's digests sealed. Once; the session runs it while the server reads the groups (the
    /// client waits on the server's hash tables then, measured: ~0.3 s of a 250k-file fleet first scan), else
    /// <see cref="Join"/> does.
    /// </summary>
    public void Prepare()
    {
        if (_prepared)
        {
            return;
        }

        _localFolders = rows.Folders();
        IndexHeld();
        rows.IndexNames();
        own?.Seal(rows.Contains);
        _prepared = true;
    }

    /// <summary>Indexes the held groups by their files' identities (read by every thread making groups).</summary>
    private void IndexHeld()
    {
        if (_heldByIdentity is not null || held.Count == 0)
        {
            return;
        }

        _heldByIdentity = [];
        for (var i = 0; i < held.Count; i++)
        {
            foreach (var file in held[i].Files)
            {
                _heldByIdentity[file.Identity] = i;
            }
        }
    }

    /// <summary>A held group as the scan found it (only read, by the threads making groups).</summary>
    private DuplicateGroup Held(int index) => held[index];

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
