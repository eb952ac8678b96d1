using Dedup.Core.Enumeration;

namespace Dedup.Core.Catalog;

/// <summary>
/// A scan's own files by content (size and SHA-256): the digests it made, and on a rescan those the catalog had stored
/// for its files (<see cref="FileCatalog.GetDigestsAsync"/>), from which it names its own files in the groups across
/// machines, so the catalog sends only the other machines' files (measured at 250k files matched on another machine:
/// half the 485k rows a fleet read sent were the scan's own, 0.26 s of the 1.2 s query in <c>EXPLAIN ANALYZE</c>; the
/// read without them, which also hashes only the other machines' file rows, took 0.61–0.65 s).
/// </summary>
/// <remarks>
/// Structs in arrays chained by content, no object per file (a first scan holds a digest for every file to the end).
/// Adds take a lock (the scan's threads hand digests on at once); <see cref="Seal"/> follows the last add, and reads
/// follow it, from any thread.
/// </remarks>
internal sealed class CatalogOwnFiles
{
    private readonly Dictionary<CatalogContent, int> _last = [];
    private Entry[] _entries = new Entry[1024];
    private int _count;
    private bool[]? _unlisted;

    /// <summary>One file: its stamp, whether the catalog stored it (not made by this scan), and the previous file of its content.</summary>
    private readonly record struct Entry(FileStamp Stamp, bool Stored, int Previous);

    /// <summary>A digest this scan made (checked against the file's listed stamp).</summary>
    public void AddMade(CatalogDigest digest) => Add(digest, stored: false);

    /// <summary>A digest the catalog had stored: it counts only for a stamp the scan listed (<see cref="Seal"/>).</summary>
    public void AddStored(CatalogDigest digest) => Add(digest, stored: true);

    /// <summary>
    /// After the last add: leaves out the stored digests whose stamp the scan did not list unchanged (the file changed
    /// or went; its inode may be another file's now), each looked up once here rather than once per read of its group.
    /// </summary>
    public void Seal(Func<FileStamp, bool> listed)
    {
        var unlisted = new bool[_count];
        for (var i = 0; i < unlisted.Length; i++)
        {
            unlisted[i] = _entries[i].Stored && !listed(_entries[i].Stamp);
        }

        _unlisted = unlisted;
    }

    /// <summary>
    /// Adds to <paramref name="matches"/> a row (no path: the scan names it from its rows) for each of this machine's
    /// files with the content of <paramref name="group"/>: every digest made, and every stored one the scan listed
    /// (<see cref="Seal"/>). A file has one listed stamp, and a digest is made only for a stamp with none stored, so no
    /// file comes twice (the join would name it once anyway).
    /// </summary>
    public void AppendTo(CatalogGroup group, string machine, List<CatalogMatchRow> matches)
    {
        var unlisted = _unlisted ?? throw new InvalidOperationException("Read before it was sealed.");
        if (!_last.TryGetValue(CatalogContent.Of(group), out var i))
        {
            return;
        }

        for (; i >= 0; i = _entries[i].Previous)
        {
            if (!unlisted[i])
            {
                matches.Add(new CatalogMatchRow(machine, ReadOnlyMemory<byte>.Empty, _entries[i].Stamp));
            }
        }
    }

    /// <summary>
    /// The first result of <paramref name="held"/> for the files <see cref="AppendTo"/> would add for
    /// <paramref name="group"/>, in the same order, without making their matches; <see langword="null"/> when none has one.
    /// </summary>
    public int? FirstHeld(CatalogGroup group, Func<FileIdentity, int?> held)
    {
        var unlisted = _unlisted ?? throw new InvalidOperationException("Read before it was sealed.");
        if (!_last.TryGetValue(CatalogContent.Of(group), out var i))
        {
            return null;
        }

        for (; i >= 0; i = _entries[i].Previous)
        {
            ref readonly var entry = ref _entries[i];
            if (!unlisted[i] && held(entry.Stamp.Identity) is { } index)
            {
                return index;
            }
        }

        return null;
    }

    private void Add(CatalogDigest digest, bool stored)
    {
        var content = CatalogContent.Of(digest);
        lock (_last)
        {
            if (_count == _entries.Length)
            {
                Array.Resize(ref _entries, _count * 2);
            }

            _entries[_count] = new Entry(digest.Stamp, stored, _last.TryGetValue(content, out var previous) ? previous : -1);
            _last[content] = _count++;
        }
    }
}
