using Dedup.Core.Pooling;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// A <see cref="BufferPool"/> that keeps count: it refuses a buffer it did not lend or that was already returned (the
/// pool would lend one array twice), overwrites each returned buffer (so a read of it after its return compares
/// garbage), and tells how many are still out.
/// </summary>
internal sealed class CountingBufferPool : BufferPool
{
    private readonly HashSet<byte[]> _out = new(ReferenceEqualityComparer.Instance);
    private readonly Stack<byte[]> _free = new();

    public int Outstanding => _out.Count;

    public override byte[] Rent(int minimumLength)
    {
        // Reuse a returned array when it is long enough, as a real pool does.
        var buffer = _free.Count > 0 && _free.Peek().Length >= minimumLength ? _free.Pop() : new byte[minimumLength];
        _out.Add(buffer);
        return buffer;
    }

    public override void Return(byte[] buffer)
    {
        if (!_out.Remove(buffer))
        {
            throw new InvalidOperationException("A buffer was returned that is not out (returned twice, or never rented).");
        }

        buffer.AsSpan().Fill(0xA5);
        _free.Push(buffer);
    }
}
