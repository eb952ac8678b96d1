using Dedup.Core.Comparison;
using Dedup.Core.Pooling;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// A <see cref="ComparisonSet"/> over byte arrays, for testing strategies directly: it records which bytes
/// of each file were read, can make a file fail from a given offset on (as a vanished or changed file
/// does), and rejects groups that break the contract (fewer than two files, a failed file, a file in
/// two groups, or a byte-verified group whose bytes were not all read).
/// </summary>
public sealed class MemoryComparisonSet : ComparisonSet
{
    private readonly byte[][] _files;
    private readonly long[] _failFrom;
    private readonly bool[] _failed;
    private readonly bool[][] _covered;
    private readonly HashSet<int> _grouped = [];

    public MemoryComparisonSet(IReadOnlyList<byte[]> files, DuplicateHashAlgorithm hashAlgorithm = DuplicateHashAlgorithm.XxHash128, bool trustHashes = false, int chunkSize = 64)
        : base(hashAlgorithm, trustHashes, chunkSize, BufferPool.Shared)
    {
        _files = [.. files];
        Length = _files.Length == 0 ? 0 : _files[0].Length;
        if (_files.Any(f => f.Length != Length))
        {
            throw new ArgumentException("All files of a set have one length.", nameof(files));
        }

        _failFrom = Enumerable.Repeat(long.MaxValue, _files.Length).ToArray();
        _failed = new bool[_files.Length];
        _covered = _files.Select(f => new bool[f.Length]).ToArray();
    }

    public override int Count => _files.Length;

    public override long Length { get; }

    public List<(int[] Members, bool Verified)> Groups { get; } = [];

    public int Reads { get; private set; }

    /// <summary>Makes every read of <paramref name="index"/> that reaches <paramref name="offset"/> fail, for good.</summary>
    public void FailFrom(int index, long offset) => _failFrom[index] = offset;

    public override bool TryRead(int index, long offset, Span<byte> destination)
    {
        if (offset < 0 || offset + destination.Length > Length)
        {
            throw new InvalidOperationException($"Read of {destination.Length} bytes at {offset} is outside the {Length}-byte file.");
        }

        Reads++;
        if (_failed[index] || offset + destination.Length > _failFrom[index])
        {
            _failed[index] = true;
            return false;
        }

        _files[index].AsSpan((int)offset, destination.Length).CopyTo(destination);
        Array.Fill(_covered[index], true, (int)offset, destination.Length);
        return true;
    }

    public override void Release(int index)
    {
        // Nothing to close in memory.
    }

    public override void AddGroup(ReadOnlySpan<int> indices, bool verifiedByBytes)
    {
        if (indices.Length < 2)
        {
            throw new InvalidOperationException("A group needs two or more files.");
        }

        foreach (var index in indices)
        {
            if (_failed[index])
            {
                throw new InvalidOperationException($"File {index} failed but was grouped.");
            }

            if (!_grouped.Add(index))
            {
                throw new InvalidOperationException($"File {index} was put in two groups.");
            }

            if (verifiedByBytes && Array.IndexOf(_covered[index], false) >= 0)
            {
                throw new InvalidOperationException($"File {index} is in a byte-verified group but not all its bytes were read.");
            }
        }

        Groups.Add((indices.ToArray(), verifiedByBytes));
    }

    /// <summary>The groups as sorted index lists, sorted: easy to compare with an expectation.</summary>
    public List<string> Canonical() =>
        Groups.Select(g => string.Join(",", g.Members.Order())).Order(StringComparer.Ordinal).ToList();

    /// <summary>The correct answer, by brute force: files of equal bytes, failed files left out.</summary>
    public List<string> Expected() =>
        Enumerable.Range(0, Count)
            .Where(i => _failFrom[i] == long.MaxValue)
            .GroupBy(i => Convert.ToHexString(_files[i]))
            .Where(g => g.Count() >= 2)
            .Select(g => string.Join(",", g.Order()))
            .Order(StringComparer.Ordinal)
            .ToList();
}
