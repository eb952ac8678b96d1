using Dedup.Core.Comparison;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

/// <summary>
/// The scan's <see cref="ComparisonSet"/>: reads its files through the scan's <see cref="FileReader"/> (each opened
/// lazily, open handles capped: <see cref="FileReader.LazyHandles"/>), drops files that fail, and turns strategy
/// results into groups.
/// </summary>
internal sealed class FileComparisonSet : ComparisonSet, IDisposable
{
    private readonly IReadOnlyList<FileNode> _files;
    private readonly long _length;
    private readonly ScanContext _context;
    private readonly IContentMap?[]? _maps;
    private readonly FileReader.LazyHandles _handles;
    private readonly List<(int[] Members, bool Verified)> _groups = [];
    private SafeFileHandle?[]? _kept;
    private int[]? _wholeReads; // descriptors of files read whole and left open for the last check, by index; -1 none

    /// <param name="files">The files to compare.</param>
    /// <param name="length">The length of the content compared: each file's, or each map's.</param>
    /// <param name="context">The scan.</param>
    /// <param name="maps">When the content is not the whole file: each file's content map (all of them are mapped).</param>
    /// <param name="open">Handles the probe left open, by index, taken over (see <see cref="TakeKept"/>).</param>
    public FileComparisonSet(IReadOnlyList<FileNode> files, long length, ScanContext context, IReadOnlyDictionary<FileNode, IContentMap>? maps = null, SafeFileHandle?[]? open = null)
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

        _handles = context.Reader.OpenLazily(files, _maps, open);
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
    /// Opens file <paramref name="index"/> for one or two reads and closes it (the probe, which reads files in
    /// parallel, each once); no file is marked failed here.
    /// </summary>
    public bool TryReadOnce(int index, long offset1, Span<byte> destination1, long offset2, Span<byte> destination2, bool probe)
        => _context.Reader.TryRead(_files[index], offset1, destination1, offset2, destination2, RecordPhysicalOffsets, probe, _maps?[index]);

    /// <summary>
    /// The probe of file <paramref name="index"/>, leaving it open (<see cref="FileReader.TryProbeKeepingOpen"/>) until
    /// it is taken for the strategy (<see cref="TakeKept"/>) or this set is disposed: for sets probed on one thread.
    /// </summary>
    public bool TryProbeKeepingOpen(int index, Span<byte> prefix, long suffixOffset, Span<byte> suffix)
    {
        var handle = _context.Reader.TryProbeKeepingOpen(_files[index], 0, prefix, suffixOffset, suffix);
        if (handle is null)
        {
            return false;
        }

        (_kept ??= new SafeFileHandle?[_files.Count])[index] = handle;
        return true;
    }

    /// <summary>
    /// Reads file <paramref name="index"/> whole and leaves it open (Linux, <see cref="FileReader.TryReadWholeKeepingOpen"/>)
    /// until <see cref="CloseWholeReads"/>: a group settled from these bytes then makes its last check through the
    /// descriptor that read them, not by a lookup of each file's name. For sets read on one thread.
    /// </summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public bool TryReadWholeKeepingOpen(int index, Span<byte> destination)
    {
        var fd = _context.Reader.TryReadWholeKeepingOpen(_files[index], destination);
        if (fd < 0)
        {
            return false;
        }

        if (_wholeReads is null)
        {
            _wholeReads = new int[_files.Count];
            _wholeReads.AsSpan().Fill(-1);
        }

        _wholeReads[index] = fd;
        return true;
    }

    /// <summary>Closes the files <see cref="TryReadWholeKeepingOpen"/> left open.</summary>
    public void CloseWholeReads()
    {
        if (_wholeReads is not { } fds || !OperatingSystem.IsLinux())
        {
            return;
        }

        for (var i = 0; i < fds.Length; i++)
        {
            if (fds[i] >= 0)
            {
                FileReader.Close(fds[i]);
                fds[i] = -1;
            }
        }
    }

    /// <summary>Whether the probe may keep files open: not for a rotational disk's physical order, nor through content maps.</summary>
    public bool CanKeepProbesOpen => !RecordPhysicalOffsets && _maps is null;

    /// <summary>Whether the probe left any file of this set open.</summary>
    public bool KeptAny => _kept is not null;

    /// <summary>The handle the probe left open for file <paramref name="index"/>, now the caller's; or <see langword="null"/>.</summary>
    public SafeFileHandle? TakeKept(int index)
    {
        if (_kept?[index] is not { } handle)
        {
            return null;
        }

        _kept[index] = null;
        return handle;
    }

    /// <summary>Marks a file failed (its error was already reported): it drops out of this set and of the scan.</summary>
    public void MarkFailed(int index)
    {
        _files[index].Dropped = true;
        _handles.Release(index);
    }

    public override bool TryRead(int index, long offset, Span<byte> destination)
    {
        if (_files[index].Dropped)
        {
            return false;
        }

        if (_handles.TryRead(index, offset, destination))
        {
            return true;
        }

        MarkFailed(index);
        return false;
    }

    public override void Release(int index) => _handles.Release(index);

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
        foreach (var index in indices)
        {
            if (!_files[index].Dropped && IsUnchanged(index))
            {
                kept[count++] = index;
            }
            else
            {
                _files[index].Dropped = true;
            }
        }

        if (count >= 2)
        {
            _groups.Add((count == kept.Length ? kept : kept.AsSpan(0, count).ToArray(), verifiedByBytes));
        }
    }

    private bool IsUnchanged(int index)
        => OperatingSystem.IsLinux() && _wholeReads is { } fds && fds[index] >= 0
            ? _context.Reader.IsUnchanged(_files[index], fds[index])
            : _handles.IsUnchanged(index);

    public void Dispose()
    {
        CloseWholeReads();
        _handles.Dispose();
        if (_kept is not null)
        {
            foreach (var handle in _kept)
            {
                handle?.Dispose();
            }
        }
    }
}
