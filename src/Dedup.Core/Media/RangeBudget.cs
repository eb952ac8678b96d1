namespace Dedup.Core.Media;

/// <summary>
/// A scan-wide allowance of payload ranges held at once by <see cref="PngChunkStream"/>s. Every PNG read whole in
/// media mode's first stage follows its chunk list, but only one member of each class of copies needs it: a set of a
/// thousand copies of a large PNG would otherwise hold a thousand lists until the set is settled. A stream that
/// cannot get more ranges gives up, and its file is located the usual way if it is needed.
/// </summary>
internal sealed class RangeBudget(long ranges)
{
    private long _left = ranges;

    /// <summary>Ranges still available.</summary>
    public long Left => Volatile.Read(ref _left);

    /// <summary>Takes <paramref name="count"/> ranges, or none if fewer are left.</summary>
    public bool TryTake(int count)
    {
        if (Interlocked.Add(ref _left, -count) >= 0)
        {
            return true;
        }

        Interlocked.Add(ref _left, count);
        return false;
    }

    /// <summary>Gives back ranges taken earlier.</summary>
    public void Return(long count) => Interlocked.Add(ref _left, count);
}
