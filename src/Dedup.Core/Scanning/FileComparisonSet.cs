using Dedup.Core.Comparison;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

/// <summary>
/// The scan's <see cref="ComparisonSet"/>: opens files lazily, keeps at most <see cref="MaxOpenHandles"/>
/// open (closing another when over), counts bytes read, and turns strategy results into groups.
/// </summary>
internal sealed class FileComparisonSet : ComparisonSet, IDisposable
{
    public const int MaxOpenHandles = 96;

    private readonly IReadOnlyList<FileNode> _files;
    private readonly long _length;
    private readonly ScanState _state;
    private readonly SafeFileHandle?[] _handles;
    private readonly List<(int[] Members, bool Verified)> _groups = [];
    private int _openCount;
    private int _clock;

    public FileComparisonSet(IReadOnlyList<FileNode> files, long length, ScanState state)
        : base(state.Options.HashAlgorithm, state.Options.TrustHashes, state.Options.ChunkSize, state.Options.Buffers)
    {
        _files = files;
        _length = length;
        _state = state;
        _handles = new SafeFileHandle?[files.Count];
    }

    public override int Count => _files.Count;

    public override long Length => _length;

    public IReadOnlyList<(int[] Members, bool Verified)> Groups => _groups;

    /// <summary>When set (rotational disks), the probe records each file's physical offset for later read order.</summary>
    public bool RecordPhysicalOffsets { get; init; }

    public FileNode this[int index] => _files[index];

    /// <summary>The scan's state (for stages that read files themselves, in parallel).</summary>
    public ScanState State => _state;

    /// <summary>Marks a file failed (its error was already reported): it drops out of this set and of the scan.</summary>
    public void MarkFailed(int index)
    {
        _files[index].Dropped = true;
        Release(index);
    }

    public override bool TryRead(int index, long offset, Span<byte> destination)
    {
        if (_files[index].Dropped)
        {
            return false;
        }

        var handle = _handles[index] ?? Open(index);
        if (handle is null)
        {
            return false;
        }

        if (ContentReader.TryRead(_files[index], handle, _state, offset, destination))
        {
            ContentReader.FollowPng(_files[index], _state, offset, destination);
            return true;
        }

        MarkFailed(index);
        return false;
    }

    public override void Release(int index)
    {
        var handle = _handles[index];
        if (handle is not null)
        {
            _handles[index] = null;
            _openCount--;
            handle.Dispose();
        }
    }

    public override void AddGroup(ReadOnlySpan<int> indices, bool verifiedByBytes)
    {
        if (indices.Length < 2)
        {
            throw new ArgumentException("A group needs at least two files.", nameof(indices));
        }

        // A last check that nothing changed while it was being read; changed files drop out.
        var kept = new List<int>(indices.Length);
        foreach (var index in indices)
        {
            if (!_files[index].Dropped && FileOpener.IsUnchanged(_files[index].Primary, _handles[index], _state))
            {
                kept.Add(index);
            }
            else
            {
                _files[index].Dropped = true;
            }
        }

        if (kept.Count >= 2)
        {
            _groups.Add((kept.ToArray(), verifiedByBytes));
        }
    }

    public void Dispose()
    {
        for (var i = 0; i < _handles.Length; i++)
        {
            _handles[i]?.Dispose();
            _handles[i] = null;
        }
    }

    private SafeFileHandle? Open(int index)
    {
        if (_openCount >= MaxOpenHandles)
        {
            CloseAnother(index);
        }

        var handle = FileOpener.TryOpen(_files[index].Primary, _state);
        if (handle is null)
        {
            _files[index].Dropped = true;
            return null;
        }

        FileOpener.Advise(handle, sequential: true);
        _handles[index] = handle;
        _openCount++;
        return handle;
    }

    private void CloseAnother(int except)
    {
        for (var n = 0; n < _handles.Length; n++)
        {
            _clock = (_clock + 1) % _handles.Length;
            if (_clock != except && _handles[_clock] is not null)
            {
                Release(_clock);
                return;
            }
        }
    }
}
