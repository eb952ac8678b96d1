using Dedup.Core.Paths;

namespace Dedup.Core.FileSystem;

/// <summary>
/// A scan's map from folder to descriptor (the reader's folder cache, <see cref="FolderHandles"/>): open addressing over arrays, read without locks, written
/// under one, with each folder's at-path answer (<see cref="FolderHandles.LocateAtPath"/>) beside its descriptor. A
/// probe compares stored hash codes and touches a key object only when one matches. It is not much faster than the
/// <c>ConcurrentDictionary</c> it replaced (perf, warm 250k scan: 2.5 % of the CPU in its lookups against 2.7 %: the
/// cost is the cache misses on the folder node and the slot, which no table avoids), but makes no object per entry.
/// Entries are never removed: the table is at most half full (room for twice the cache's capacity: descriptors and
/// folders marked unopenable), so probes stay short; an add past that is refused and the caller goes on without it. The
/// arrays (~320 KB at the usual capacity) are made at the first add.
/// </summary>
internal sealed class FolderDescriptorTable
{
    /// <summary>The value of a slot whose descriptor was given up (closed at disposal, or refused).</summary>
    public const int Closed = -1;

    // Made at the first add (a scan that opens no folder allocates nothing); _keys is published last.
    private AbsolutePath?[]? _keys;
    private int[] _hashes = [];
    private int[] _values = [];
    private int[] _atPath = []; // 0 not yet known, 1 at its path, -1 not
    private bool[] _beneath = [];
    private readonly int _size;
    private readonly int _mask;
    private readonly int _limit;
    private readonly object _gate = new();
    private int _count;

    public FolderDescriptorTable(int capacity)
    {
        var size = 16;
        while (size < (2 * capacity) + 16)
        {
            size *= 2;
        }

        _size = size;
        _mask = size - 1;
        _limit = size / 2; // at most half full: probes stay short
    }

    /// <summary>The slot of <paramref name="folder"/>, or -1 if it has none.</summary>
    public int Find(AbsolutePath folder)
    {
        var keys = Volatile.Read(ref _keys);
        if (keys is null)
        {
            return -1;
        }

        var hash = folder.GetHashCode();
        for (var i = hash & _mask; ; i = (i + 1) & _mask)
        {
            var key = Volatile.Read(ref keys[i]);
            if (key is null)
            {
                return -1;
            }

            if (_hashes[i] == hash && (ReferenceEquals(key, folder) || key.Equals(folder)))
            {
                return i;
            }
        }
    }

    /// <summary>The value stored for <paramref name="folder"/>: a descriptor, or a negative mark.</summary>
    public bool TryGetValue(AbsolutePath folder, out int value)
    {
        var slot = Find(folder);
        value = slot < 0 ? 0 : Volatile.Read(ref _values[slot]);
        return slot >= 0;
    }

    /// <summary>The value in <paramref name="slot"/> (from <see cref="Find"/>).</summary>
    public int ValueAt(int slot) => Volatile.Read(ref _values[slot]);

    /// <summary>
    /// Adds <paramref name="folder"/> with <paramref name="value"/>; its slot, or -1 if the folder is already there
    /// (<paramref name="existing"/> is then its value) or the table is full (<paramref name="existing"/> is
    /// <see cref="Closed"/>).
    /// </summary>
    public int TryAdd(AbsolutePath folder, int value, out int existing, bool beneath = false)
    {
        lock (_gate)
        {
            var keys = _keys;
            if (keys is null)
            {
                _hashes = new int[_size];
                _values = new int[_size];
                _atPath = new int[_size];
                _beneath = new bool[_size];
                keys = new AbsolutePath?[_size];
                Volatile.Write(ref _keys, keys);
            }

            var hash = folder.GetHashCode();
            var i = hash & _mask;
            for (; keys[i] is { } key; i = (i + 1) & _mask)
            {
                if (_hashes[i] == hash && (ReferenceEquals(key, folder) || key.Equals(folder)))
                {
                    existing = _values[i];
                    return -1;
                }
            }

            if (_count >= _limit)
            {
                existing = Closed;
                return -1;
            }

            _values[i] = value;
            _hashes[i] = hash;
            _beneath[i] = beneath;
            Volatile.Write(ref keys[i], folder); // value and hash first: a reader that sees the key sees them
            _count++;
            existing = value;
            return i;
        }
    }

    /// <summary>Takes the descriptor out of <paramref name="slot"/>, leaving <see cref="Closed"/>: whoever gets a descriptor (not a mark) closes it.</summary>
    public int Take(int slot) => Interlocked.Exchange(ref _values[slot], Closed);

    /// <summary>Every slot in use, for disposal.</summary>
    public IEnumerable<int> Slots()
    {
        var keys = Volatile.Read(ref _keys) ?? [];
        for (var i = 0; i < keys.Length; i++)
        {
            if (Volatile.Read(ref keys[i]) is not null)
            {
                yield return i;
            }
        }
    }

    /// <summary>
    /// Whether the descriptor in <paramref name="slot"/> is a scan root's, or was opened from one one name at a time
    /// without following links: every path below it then names only folders the scan listed (<see cref="RootedTree"/>).
    /// </summary>
    public bool IsBeneathRoot(int slot) => _beneath[slot];

    /// <summary>Whether the folder in <paramref name="slot"/> was found at its path: 1 yes, -1 no, 0 not asked yet.</summary>
    public int AtPath(int slot) => Volatile.Read(ref _atPath[slot]);

    /// <summary>Records the answer of the at-path check for <paramref name="slot"/>; the first answer stays.</summary>
    public bool SetAtPath(int slot, bool atPath)
    {
        _ = Interlocked.CompareExchange(ref _atPath[slot], atPath ? 1 : -1, 0);
        return Volatile.Read(ref _atPath[slot]) > 0;
    }
}
