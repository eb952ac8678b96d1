namespace Dedup.Core.Scanning;

/// <summary>
/// How far the compare stage is: the size barrier's sets as the totals, and each set counted once settled (its groups
/// published or its files proven distinct), so a consumer can show a percentage (<see cref="Reporting.ScanProgress"/>).
/// </summary>
/// <remarks>
/// Counted in whole sets, not bytes read: probes stop at the first differing page and a cache settles a set without
/// reading it, so bytes read would never reach a total, while settled sets reach it exactly.
/// </remarks>
internal sealed class CompareProgress
{
    private long _filesToCompare = -1;
    private long _bytesToCompare = -1;
    private long _filesCompared;
    private long _bytesCompared;

    /// <summary>Distinct files in the sets, or −1 before the size barrier.</summary>
    public long FilesToCompare => Volatile.Read(ref _filesToCompare);

    /// <summary>Their total size in bytes, or −1 before the size barrier.</summary>
    public long BytesToCompare => Volatile.Read(ref _bytesToCompare);

    public long FilesCompared => Volatile.Read(ref _filesCompared);

    public long BytesCompared => Volatile.Read(ref _bytesCompared);

    /// <summary>Takes the totals, once, when the size barrier hands its sets on (before any is settled).</summary>
    public void Start(IReadOnlyList<CandidateSet> sets)
    {
        long files = 0, bytes = 0;
        foreach (var set in sets)
        {
            files += set.Count;
            bytes += set.Count * set.Size;
        }

        Volatile.Write(ref _bytesToCompare, bytes);
        Volatile.Write(ref _filesToCompare, files);
    }

    /// <summary>Counts one of the barrier's sets as done: a stage calls it once per set, whatever became of its files.</summary>
    public void Settled(CandidateSet set)
    {
        Interlocked.Add(ref _bytesCompared, set.Count * set.Size);
        Interlocked.Add(ref _filesCompared, set.Count);
    }
}
