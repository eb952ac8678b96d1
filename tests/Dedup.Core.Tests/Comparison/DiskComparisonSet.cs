using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Hashing;
using Dedup.Core.Pooling;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// A <see cref="ComparisonSet"/> over real files, for driving strategies directly on disk: a file is opened on its first
/// read and closed on <see cref="Release"/>; a short read (the file shrank) fails it for good, as the scan's set does.
/// It keeps every read, release and digest, and refuses what breaks the contract at once: a read outside the length, a
/// read of a failed file, a group of fewer than two files, of a failed file, a file in two groups, or a byte-verified
/// group of a file whose bytes were not all read.
/// </summary>
internal sealed class DiskComparisonSet : ComparisonSet, IDisposable
{
    private readonly string[] _paths;
    private readonly SafeFileHandle?[] _handles;
    private readonly HashSet<int> _grouped = [];

    public DiskComparisonSet(IReadOnlyList<string> paths, long length, DuplicateHashAlgorithm hashAlgorithm, bool trustHashes, int chunkSize, BufferPool buffers)
        : base(hashAlgorithm, trustHashes, chunkSize, buffers)
    {
        _paths = [.. paths];
        Length = length;
        _handles = new SafeFileHandle?[_paths.Length];
        Failed = new bool[_paths.Length];
        Reads = _paths.Select(_ => new List<(long Offset, int Length)>()).ToArray();
        OpenAtEnd = new bool[_paths.Length];
        Released = new bool[_paths.Length];
        Digests = new ContentHash?[_paths.Length];
    }

    public override int Count => _paths.Length;

    public override long Length { get; }

    public List<(int[] Members, bool Verified)> Groups { get; } = [];

    /// <summary>Each file's reads in order.</summary>
    public List<(long Offset, int Length)>[] Reads { get; }

    public bool[] Failed { get; }

    /// <summary>Whether the file was read since its last <see cref="Release"/> (or never released after a read).</summary>
    public bool[] OpenAtEnd { get; }

    public bool[] Released { get; }

    /// <summary>The whole-file digests a strategy reported through <see cref="OnContentDigest"/>.</summary>
    public ContentHash?[] Digests { get; }

    /// <summary>The most files open at once.</summary>
    public int MostOpen { get; private set; }

    public override bool TryRead(int index, long offset, Span<byte> destination)
    {
        if (offset < 0 || offset + destination.Length > Length)
        {
            throw new InvalidOperationException($"Read of {destination.Length} bytes at {offset} is outside the {Length}-byte file.");
        }

        if (Failed[index])
        {
            throw new InvalidOperationException($"File {index} was read again after it failed.");
        }

        Reads[index].Add((offset, destination.Length));
        OpenAtEnd[index] = true;
        if (_handles[index] is null)
        {
            _handles[index] = File.OpenHandle(_paths[index]);
            MostOpen = Math.Max(MostOpen, _handles.Count(h => h is not null));
        }

        var done = 0;
        while (done < destination.Length)
        {
            var n = RandomAccess.Read(_handles[index]!, destination[done..], offset + done);
            if (n == 0)
            {
                // The file shrank: it fails for good and its handle is closed, as the scan's set does.
                Failed[index] = true;
                OpenAtEnd[index] = false;
                Close(index);
                return false;
            }

            done += n;
        }

        return true;
    }

    public override void Release(int index)
    {
        Released[index] = true;
        OpenAtEnd[index] = false;
        Close(index);
    }

    public override void AddGroup(ReadOnlySpan<int> indices, bool verifiedByBytes)
    {
        if (indices.Length < 2)
        {
            throw new InvalidOperationException("A group needs two or more files.");
        }

        foreach (var index in indices)
        {
            if (Failed[index])
            {
                throw new InvalidOperationException($"File {index} failed but was grouped.");
            }

            if (!_grouped.Add(index))
            {
                throw new InvalidOperationException($"File {index} was put in two groups.");
            }

            if (verifiedByBytes && !ReadWhole(index))
            {
                throw new InvalidOperationException($"File {index} is in a byte-verified group but not all its bytes were read.");
            }
        }

        Groups.Add((indices.ToArray(), verifiedByBytes));
    }

    internal override void OnContentDigest(int index, ContentHash digest)
    {
        if (Failed[index])
        {
            throw new InvalidOperationException($"A digest was reported for file {index}, which failed.");
        }

        Digests[index] = digest;
    }

    /// <summary>The groups as sorted index lists, sorted.</summary>
    public List<string> Canonical() =>
        Groups.Select(g => string.Join(",", g.Members.Order())).Order(StringComparer.Ordinal).ToList();

    /// <summary>Whether the reads of file <paramref name="index"/> cover all its bytes.</summary>
    public bool ReadWhole(int index)
    {
        long end = 0;
        foreach (var (offset, length) in Reads[index].OrderBy(r => r.Offset))
        {
            if (offset > end)
            {
                return false;
            }

            end = Math.Max(end, offset + length);
        }

        return end >= Length;
    }

    /// <summary>Total bytes read of file <paramref name="index"/>.</summary>
    public long BytesRead(int index) => Reads[index].Sum(r => (long)r.Length);

    public void Dispose()
    {
        for (var i = 0; i < _handles.Length; i++)
        {
            Close(i);
        }
    }

    private void Close(int index)
    {
        _handles[index]?.Dispose();
        _handles[index] = null;
    }
}
