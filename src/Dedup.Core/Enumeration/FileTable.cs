using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

/// <summary>
/// Every file a scan enumerated, as rows of plain data in blocks of <see cref="BlockSize"/> outside the GC heap (see
/// <see cref="FileRow"/> and <see cref="NativeBlock"/>),
/// folders as numbers (<see cref="GetFolder"/>) and names as bytes in a <see cref="NameArena"/>. About 60 bytes plus the
/// name per file, where an object per file, per path node and per name cost about 185. Filled concurrently through one
/// <see cref="Writer"/> per enumeration thread; read once enumeration has ended (<see cref="Seal"/>), when a row is
/// addressed by its number. Paths and <see cref="ScannedFile"/> objects are made only for the files a stage compares.
/// </summary>
internal sealed unsafe partial class FileTable
{
    public const int BlockShift = 14;
    public const int BlockSize = 1 << BlockShift;
    private const int BlockMask = BlockSize - 1;
    private const long UnixEpochTicks = 621355968000000000;

    private readonly object _gate = new();
    private readonly List<NativeBlock> _blocks = [];
    private readonly List<int> _counts = [];
    private readonly List<AbsolutePath> _folders = [];
    private readonly Dictionary<AbsolutePath, int> _folderNumbers = [];
    private readonly bool _includeEmptyFiles;
    private readonly Action<long>? _filesAdded;
    private readonly Action<long>? _bytesRead;
    private Writer? _single;
    private bool _sealed;

    /// <param name="includeEmptyFiles">Whether files of length 0 are kept (they are counted either way).</param>
    /// <param name="filesAdded">Told how many files were enumerated, per folder (progress).</param>
    /// <param name="bytesRead">Told how many bytes were read to key files (<see cref="KeyedLength"/>), per folder.</param>
    public FileTable(bool includeEmptyFiles = true, Action<long>? filesAdded = null, Action<long>? bytesRead = null)
    {
        _includeEmptyFiles = includeEmptyFiles;
        _filesAdded = filesAdded;
        _bytesRead = bytesRead;
    }

    /// <summary>
    /// Files of at most this many bytes are read whole by the built-in enumerator while their folder is listed, through
    /// the folder's descriptor, and keyed by a hash of their bytes (<see cref="FileRow.ContentKey"/>); 0 (the default)
    /// reads none. The size barrier then drops the files whose key no other file of their size has: most small files of
    /// a tree are never opened again (docs/architecture.md, Enumerate). Set before enumeration.
    /// </summary>
    public int KeyedLength { get; init; }

    /// <summary>
    /// Whether the built-in enumerator reads the files of at most <see cref="KeyedLength"/> bytes while listing them
    /// (the default); without, every one is left to the key pass (<see cref="Scanning.KeyPass"/>), as when the page
    /// cache holds none of them: tests stand for a cold tree this way.
    /// </summary>
    internal bool KeysWhileListing { get; init; } = true;

    /// <summary>The most <see cref="KeyedLength"/> can be: a key's read is one buffer on the listing thread's stack.</summary>
    public const int MaxKeyedLength = 8192;

    public NameArena Names { get; } = new();

    /// <summary>Number of rows; valid once sealed.</summary>
    public int Count { get; private set; }

    /// <summary>Number of row blocks held (memory benchmarks and tests).</summary>
    internal int BlockCount
    {
        get
        {
            lock (_gate)
            {
                return _blocks.Count;
            }
        }
    }

    /// <summary>Number of folders.</summary>
    public int FolderCount
    {
        get
        {
            lock (_gate)
            {
                return _folders.Count;
            }
        }
    }

    /// <summary>The row numbered <paramref name="index"/> (once sealed).</summary>
    public ref FileRow this[int index] => ref Rows(_blocks[index >> BlockShift])[index & BlockMask];

    private static FileRow* Rows(NativeBlock block) => (FileRow*)block.Pointer;

    private NativeBlock NewBlock()
    {
        var bytes = BlockSize * sizeof(FileRow);
        lock (_gate)
        {
            return new(bytes, reportPressure: (long)_blocksAllocated++ * bytes >= NativeBlock.PressureFrom);
        }
    }

    private int _blocksAllocated;

    /// <summary>Registers a folder; returns its number.</summary>
    public int AddFolder(AbsolutePath folder)
    {
        lock (_gate)
        {
            ThrowIfSealed();
            _folders.Add(folder);
            return _folders.Count - 1;
        }
    }

    public AbsolutePath GetFolder(int number)
    {
        if (Volatile.Read(ref _sealed))
        {
            return _folders[number]; // no folder is added once sealed: every read of the compare stage goes without the lock
        }

        lock (_gate)
        {
            return _folders[number];
        }
    }

    private void ThrowIfSealed()
    {
        if (_sealed)
        {
            throw new InvalidOperationException("The table is sealed.");
        }
    }

    /// <summary>A writer for one enumeration thread.</summary>
    public Writer CreateWriter() => new(this);

    /// <summary>Adds a file given by a custom enumerator (one thread); its folder is numbered on first sight.</summary>
    public void Add(ScannedFile file)
    {
        var folder = file.Path.Parent ?? throw new ArgumentException($"'{file.Path}' is not a file in a folder.", nameof(file));
        if (!_folderNumbers.TryGetValue(folder, out var number))
        {
            _folderNumbers[folder] = number = AddFolder(folder);
        }

        _single ??= CreateWriter();
        _single.Add(number, file.Path.Name, file.ToRow());
        _single.EndFolder();
    }

    /// <summary>Ends enumeration: every writer's last block is in; rows are packed so that a number addresses each.</summary>
    public void Seal()
    {
        if (_sealed)
        {
            return; // a catalog reads the rows before the size barrier, which seals again
        }

        _single?.Complete();
        _single = null;
        _folderNumbers.Clear();

        // Full blocks first: only the few partial ones (one per writer) move.
        var order = Enumerable.Range(0, _blocks.Count).OrderBy(i => _counts[i] == BlockSize ? 0 : 1).ToArray();
        var blocks = order.Select(i => _blocks[i]).ToArray();
        var counts = order.Select(i => _counts[i]).ToArray();
        _blocks.Clear();
        _blocks.AddRange(blocks);
        _counts.Clear();
        _counts.AddRange(counts);
        _sealed = true;
        Count = Pack(keep: null);
    }

    /// <summary>
    /// Drops every row whose bit in <paramref name="keep"/> (row <c>r</c> is bit <c>r % 64</c> of word <c>r / 64</c>) is
    /// clear, moving the kept ones down in place (no second copy of the table) and freeing the blocks left empty. A kept
    /// row's new number is the count of kept rows before it.
    /// </summary>
    public void Retain(ulong[] keep)
    {
        if (!_sealed)
        {
            throw new InvalidOperationException("The table is not sealed.");
        }

        Count = Pack(keep);
    }

    private int Pack(ulong[]? keep)
    {
        var write = 0;
        var read = 0;
        for (var b = 0; b < _blocks.Count; b++)
        {
            var block = Rows(_blocks[b]);
            for (var i = 0; i < _counts[b]; i++, read++)
            {
                if (keep is not null && (keep[read >> 6] & (1UL << read)) == 0)
                {
                    continue;
                }

                // The write position never passes the read position, so no row is overwritten before it is read.
                Rows(_blocks[write >> BlockShift])[write & BlockMask] = block[i];
                write++;
            }
        }

        var blocksUsed = (write + BlockMask) >> BlockShift;
        for (var b = blocksUsed; b < _blocks.Count; b++)
        {
            _blocks[b].Dispose(); // no row lives there any more, and no file object was made from one yet
        }

        _blocks.RemoveRange(blocksUsed, _blocks.Count - blocksUsed);
        _counts.Clear();
        for (var b = 0; b < blocksUsed; b++)
        {
            _counts.Add(Math.Min(BlockSize, write - (b << BlockShift)));
        }

        return write;
    }

    /// <summary>The row as a <see cref="ScannedFile"/> whose path is made only if asked for.</summary>
    public ScannedFile ToScannedFile(int index) => new(this, index);

    /// <summary>The row's path (made on each call).</summary>
    public AbsolutePath GetPath(int index)
    {
        ref var row = ref this[index];
        return GetFolder(row.Folder).Child(Names.GetString(row.Name));
    }

    /// <summary>The row's name as characters.</summary>
    public string GetName(int index) => Names.GetString(this[index].Name);

    /// <summary>Nanoseconds since the Unix epoch to a UTC time, to 100 ns (rounded down, also before 1970).</summary>
    internal static DateTime ToDateTime(long unixNs)
    {
        var ticks = unixNs / 100;
        if (unixNs % 100 < 0)
        {
            ticks--;
        }

        return new DateTime(UnixEpochTicks + ticks, DateTimeKind.Utc);
    }

    private void Commit(NativeBlock block, int count)
    {
        lock (_gate)
        {
            ThrowIfSealed();
            _blocks.Add(block);
            _counts.Add(count);
        }
    }

    /// <summary>Appends rows for one thread: a block of its own, handed to the table when full or when the thread ends.</summary>
    internal sealed class Writer
    {
        private readonly FileTable _table;
        private readonly NameArena.Writer _names;
        private NativeBlock? _block;
        private int _count;
        private long _seen;
        private long _keyedBytes;

        public Writer(FileTable table)
        {
            _table = table;
            _names = new NameArena.Writer(table.Names);
        }

        /// <summary>Adds a file named by the kernel's bytes; <paramref name="row"/>'s folder and name are filled here.</summary>
        public void Add(int folder, ReadOnlySpan<byte> name, in FileRow row)
        {
            if (Counts(row))
            {
                Store(folder, row).Name = _names.Add(name);
            }
        }

        /// <summary>Adds a file named by characters (Windows, other platforms, custom enumerators).</summary>
        public void Add(int folder, string name, in FileRow row)
        {
            if (Counts(row))
            {
                Store(folder, row).Name = _names.Add(name);
            }
        }

        /// <summary>Counts the file as seen; whether it is kept (empty files only when asked for).</summary>
        private bool Counts(in FileRow row)
        {
            _seen++;
            if (row.ContentKey != 0)
            {
                _keyedBytes += row.Length;
            }

            return row.Length != 0 || _table._includeEmptyFiles;
        }

        private ref FileRow Store(int folder, in FileRow row)
        {
            ref var slot = ref Next();
            slot = row;
            slot.Folder = folder;
            return ref slot;
        }

        /// <summary>Reports the files seen since the last call (once per folder listed).</summary>
        public void EndFolder()
        {
            if (_seen > 0)
            {
                _table._filesAdded?.Invoke(_seen);
                _seen = 0;
            }

            if (_keyedBytes > 0)
            {
                _table._bytesRead?.Invoke(_keyedBytes);
                _keyedBytes = 0;
            }
        }

        /// <summary>Hands the last, partly filled block to the table.</summary>
        public void Complete()
        {
            EndFolder();
            if (_count > 0)
            {
                _table.Commit(_block!, _count);
                _block = null;
                _count = 0;
            }
        }

        private ref FileRow Next()
        {
            if (_block is null || _count == BlockSize)
            {
                if (_block is not null)
                {
                    _table.Commit(_block, _count);
                }

                _block = _table.NewBlock();
                _count = 0;
            }

            return ref Rows(_block)[_count++];
        }
    }
}
