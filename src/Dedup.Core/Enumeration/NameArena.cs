using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

/// <summary>
/// File names as the kernel's bytes, packed into 64 KiB chunks outside the GC heap (<see cref="NativeBlock"/>): a name costs its length plus two bytes, not a string
/// object (about 60 bytes for a typical name). Each enumeration thread appends through its own <see cref="Writer"/>, so
/// appends take no lock but once per chunk. An address is the chunk number and offset in one <see cref="int"/>. Names
/// that are not kernel bytes (an unpaired surrogate from Windows, or longer than a chunk allows) are kept as strings
/// beside the chunks, at negative addresses.
/// </summary>
internal sealed unsafe class NameArena
{
    private const int ChunkShift = 16;
    private const int ChunkSize = 1 << ChunkShift;
    private const int MaxNameBytes = 16 * 1024;

    private readonly object _gate = new();
    private NativeBlock?[] _chunks = new NativeBlock?[16];
    private int _chunkCount;
    private readonly List<string> _strings = [];

    /// <summary>Number of chunks (tests).</summary>
    internal int ChunkCount => Volatile.Read(ref _chunkCount);

    /// <summary>Bytes held in chunks (diagnostics and memory benchmarks).</summary>
    public long ChunkBytes => (long)Volatile.Read(ref _chunkCount) * ChunkSize;

    /// <summary>The name at <paramref name="address"/>, as characters (escaped bytes per <see cref="KernelNames"/>).</summary>
    public string GetString(int address)
    {
        if (address < 0)
        {
            lock (_gate)
            {
                return _strings[~address];
            }
        }

        return KernelNames.GetString(GetBytes(address));
    }

    /// <summary>The name's bytes; empty for a name kept as a string.</summary>
    public ReadOnlySpan<byte> GetBytes(int address)
    {
        if (address < 0)
        {
            return default;
        }

        var chunk = _chunks[address >> ChunkShift]!.Pointer + (address & (ChunkSize - 1));
        return new ReadOnlySpan<byte>(chunk + 2, chunk[0] | (chunk[1] << 8));
    }

    private int AddChunk(out NativeBlock chunk)
    {
        lock (_gate)
        {
            chunk = new NativeBlock(ChunkSize, reportPressure: (long)_chunkCount * ChunkSize >= NativeBlock.PressureFrom);
            if (_chunkCount == _chunks.Length)
            {
                Array.Resize(ref _chunks, _chunks.Length * 2);
            }

            if (_chunkCount >= (int.MaxValue >> ChunkShift))
            {
                throw new InvalidOperationException("More than 2 GiB of file names in one scan.");
            }

            _chunks[_chunkCount] = chunk;
            return _chunkCount++;
        }
    }

    private int AddString(string name)
    {
        lock (_gate)
        {
            _strings.Add(name);
            return ~(_strings.Count - 1);
        }
    }

    /// <summary>Appends names for one thread.</summary>
    internal sealed class Writer(NameArena arena)
    {
        private NativeBlock? _chunk;
        private int _chunkNumber;
        private int _used;

        /// <summary>Stores a name given as the kernel's bytes; returns its address.</summary>
        public int Add(ReadOnlySpan<byte> name)
        {
            if (name.Length > MaxNameBytes)
            {
                return arena.AddString(KernelNames.GetString(name));
            }

            var needed = name.Length + 2;
            if (_chunk is null || _used + needed > ChunkSize)
            {
                _chunkNumber = arena.AddChunk(out _chunk);
                _used = 0;
            }

            var offset = _used;
            var target = _chunk.Pointer + offset;
            target[0] = (byte)name.Length;
            target[1] = (byte)(name.Length >> 8);
            name.CopyTo(new Span<byte>(target + 2, name.Length));
            _used += needed;
            return (_chunkNumber << ChunkShift) | offset;
        }

        /// <summary>Stores a name given as characters: as bytes when <see cref="KernelNames"/> can encode it, else as the string.</summary>
        public int Add(string name)
        {
            if (name.Length <= MaxNameBytes / 3)
            {
                Span<byte> bytes = stackalloc byte[name.Length * 3];
                if (KernelNames.TryEncode(name.AsSpan(), bytes, out var written))
                {
                    return Add(bytes[..written]);
                }
            }

            return arena.AddString(name);
        }
    }
}
