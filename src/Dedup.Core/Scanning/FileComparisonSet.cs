using Dedup.Core.Comparison;
using Dedup.Core.IO;

namespace Dedup.Core.Scanning;

/// <summary>
/// The scan's <see cref="ComparisonSet"/>: reads its files through the scan's <see cref="FileReader"/>, keeps those
/// left open in one <see cref="OpenFileSet"/> (a probe's or a whole read's, or opened lazily by the strategy, capped),
/// drops files that fail, and turns strategy results into groups.
/// </summary>
internal sealed class FileComparisonSet : ComparisonSet, IDisposable
{
    private readonly IReadOnlyList<FileNode> _files;
    private readonly long _length;
    private readonly ScanContext _context;
    private readonly IContentMap?[]? _maps;
    private readonly OpenFileSet _open;
    private readonly List<(int[] Members, bool Verified)> _groups = [];

    /// <param name="files">The files to compare.</param>
    /// <param name="length">The length of the content compared: each file's, or each map's.</param>
    /// <param name="context">The scan.</param>
    /// <param name="maps">When the content is not the whole file: each file's content map (all of them are mapped).</param>
    /// <param name="open">Files another set's probe left open, by index, taken over (see <see cref="TakeKept"/>).</param>
    public FileComparisonSet(IReadOnlyList<FileNode> files, long length, ScanContext context, IReadOnlyDictionary<FileNode, IContentMap>? maps = null, OpenedFile[]? open = null)
        : base(context.Options.HashAlgorithm, context.Options.TrustHashes, context.Options.ChunkSize, context.Options.Buffers)
    {
        _files = files;
        _length = length;
        _context = context;
        if (maps is not null)
        {
            _maps = new IContentMap?[files.Count];
            for (var i = 0; i < files.Count; i++)
            {
                _maps[i] = maps[files[i]];
            }
        }

        _open = new OpenFileSet(context.Reader, files, open);
    }

    public override int Count => _files.Count;

    public override long Length => _length;

    public IReadOnlyList<(int[] Members, bool Verified)> Groups => _groups;

    /// <summary>When set (rotational disks), the probe records each file's physical offset for later read order.</summary>
    public bool RecordPhysicalOffsets { get; init; }

    public FileNode this[int index] => _files[index];

    /// <summary>When set (by a settler that keeps them, the cache's), the probe stores each file's probe key here, by index.</summary>
    public ulong[]? ProbeKeys { get; init; }

    /// <summary>Keeps the probe key of file <paramref name="index"/> (<see cref="ProbeKeys"/>).</summary>
    public void NoteProbeKey(int index, ulong key)
    {
        if (ProbeKeys is { } keys)
        {
            keys[index] = key;
        }
    }

    /// <summary>The comparer hashed file <paramref name="index"/> whole: a feature that takes digests (the cache) keeps it with its stamp.</summary>
    internal override void OnContentDigest(int index, Comparison.Hashing.ContentHash digest)
    {
        if (_maps is null)
        {
            _context.Digests?.Note(_files[index], digest);
        }
    }

    /// <summary>The content map file <paramref name="index"/> is read through, or <see langword="null"/> for the whole file.</summary>
    public IContentMap? ContentMap(int index) => _maps?[index];

    /// <summary>
    /// Reads file <paramref name="index"/>'s content whole into <paramref name="destination"/> (<see cref="FileReader.TryReadWhole"/>);
    /// with <paramref name="keepOpen"/> the file stays open in this set until <see cref="CloseKept"/>: a group settled
    /// from these bytes then makes its last check through the descriptor that read them, not by a lookup of each
    /// file's name (for sets read on one thread). No file is marked failed here.
    /// </summary>
    /// <remarks>With <paramref name="observe"/> off (and <paramref name="keepOpen"/> on) the caller shows the bytes to
    /// the scan once it compared them, before <see cref="CloseKept"/> (<see cref="Observe"/>).</remarks>
    public bool TryReadWhole(int index, Span<byte> destination, bool keepOpen, bool observe = true)
    {
        var file = _context.Reader.TryReadWhole(_files[index], destination, _maps?[index], observe || !keepOpen);
        return Settle(index, file, keepOpen);
    }

    /// <summary>
    /// The probe of file <paramref name="index"/> (<see cref="FileReader.TryProbe"/>): <paramref name="prefix"/> and
    /// <paramref name="suffix"/>, the suffix ending at the content's end. With <paramref name="keepOpen"/> the file
    /// stays open in this set until taken for the strategy (<see cref="TakeKept"/>) or this set is disposed (for sets
    /// probed on one thread). No file is marked failed here.
    /// </summary>
    public bool TryProbe(int index, Span<byte> prefix, Span<byte> suffix, bool keepOpen)
    {
        var file = _context.Reader.TryProbe(_files[index], prefix, _length - suffix.Length, suffix, _maps?[index]);
        return Settle(index, file, keepOpen);
    }

    /// <summary>After a read that opened file <paramref name="index"/>: records its physical offset if asked, then keeps or closes it.</summary>
    private bool Settle(int index, OpenedFile file, bool keepOpen)
    {
        if (!file.IsOpen)
        {
            return false;
        }

        if (RecordPhysicalOffsets)
        {
            FileReader.RecordPhysicalOffset(file);
        }

        if (keepOpen)
        {
            _open.Keep(index, file);
        }
        else
        {
            file.Close();
        }

        return true;
    }

    /// <summary>Closes the files the reads left open (<see cref="TryReadWhole"/>, <see cref="TryProbe"/>).</summary>
    public void CloseKept() => _open.Dispose();

    /// <summary>Whether reads may keep files open: not for a rotational disk's physical order, nor through content maps.</summary>
    public bool CanKeepOpen => !RecordPhysicalOffsets && _maps is null;

    /// <summary>Whether the probe left any file of this set open.</summary>
    public bool KeptAny => _open.Any;

    /// <summary>The file the probe left open for file <paramref name="index"/>, now the caller's; or <see cref="OpenedFile.None"/>.</summary>
    public OpenedFile TakeKept(int index) => _open.Take(index);

    /// <summary>Marks a file failed (its error was already reported): it drops out of this set and of the scan.</summary>
    public void MarkFailed(int index)
    {
        _context.Live.Drop(_files[index]);
        _open.Release(index);
    }

    public override bool TryRead(int index, long offset, Span<byte> destination) => TryRead(index, offset, destination, observe: true);

    internal override bool ObservesCopies => _maps is null && _context.Reader.ObservesCopies;

    internal override bool TryReadUnobserved(int index, long offset, Span<byte> destination) => TryRead(index, offset, destination, observe: false);

    private bool TryRead(int index, long offset, Span<byte> destination, bool observe)
    {
        if (_context.Live.IsDropped(_files[index]))
        {
            return false;
        }

        if (_open.TryRead(index, offset, destination, _maps?[index], observe))
        {
            return true;
        }

        MarkFailed(index);
        return false;
    }

    // Mapped reads are never shown to the observer (FileReader.TryRead).
    internal override void Observe(int index, long offset, ReadOnlySpan<byte> bytes, int sameAs)
    {
        if (_maps is null)
        {
            _open.Observe(index, offset, bytes, sameAs);
        }
    }

    public override void Release(int index) => _open.Release(index);

    public override void AddGroup(ReadOnlySpan<int> indices, bool verifiedByBytes)
    {
        if (indices.Length < 2)
        {
            throw new ArgumentException("A group needs at least two files.", nameof(indices));
        }

        // A last check that nothing changed while it was being read; changed files drop out.
        // Usually every member stays: the array is the group's own, trimmed only when one dropped out.
        var kept = new int[indices.Length];
        var count = 0;
        var live = _context.Live;
        foreach (var index in indices)
        {
            if (live.IsLive(_files[index]) && IsUnchanged(index))
            {
                kept[count++] = index;
            }
            else
            {
                live.Drop(_files[index]);
            }
        }

        if (count >= 2)
        {
            // Stryker disable once Conditional : a copy of the full array has the same members; the test spares an allocation
            _groups.Add((count == kept.Length ? kept : kept.AsSpan(0, count).ToArray(), verifiedByBytes));
        }
    }

    private bool IsUnchanged(int index) => _open.IsUnchanged(index);

    public void Dispose() => _open.Dispose();
}
