namespace Dedup.Core.Media;

/// <summary>
/// Follows a PNG's chunk list through bytes a scan reads anyway: media mode first compares same-size files whole,
/// reading each from offset 0 to its end, and a PNG seen that way needs no second pass to locate its payload (its
/// chunk walk touches every page when the encoder writes small IDAT chunks). Bytes must arrive in file order;
/// a read that starts past what was seen (a suffix probe) is ignored, and one that overlaps it is consumed from
/// where the walk stands. Not thread-safe: a file is read by one thread at a time. Its step budget counts chunks
/// only (the locator also charges each buffer refill), so with a small <see cref="MediaOptions.MaxSteps"/> it may
/// locate a file the locator gives up on; with the default budget that takes a crafted file of hundreds of MB.
/// </summary>
internal sealed class PngChunkStream
{
    /// <summary>Most ranges taken from the budget at a time; the first take is small, so many small PNGs fit.</summary>
    private const int MaxBudgetStep = 1024;

    private readonly long _length;
    private readonly MediaOptions _options;
    private readonly RangeBudget _budget;
    private int _reserved;
    private int _budgetStep = 16;
    private readonly List<ByteRange> _ranges = [];
    private readonly byte[] _header = new byte[PngChunks.HeaderSize];
    private PngChunks _chunks;
    private long _seen;
    private long _next = 8;
    private int _headerFill;
    private long _steps;
    private PngChunkStep? _result;

    public PngChunkStream(long length, MediaOptions options, RangeBudget budget)
    {
        _length = length;
        _options = options;
        _budget = budget;
    }

    /// <summary>Whether a read at offset 0 of this content starts a PNG (the only reads that create a stream).</summary>
    public static bool Starts(long offset, ReadOnlySpan<byte> bytes) => offset == 0 && bytes.StartsWith(PngChunks.Signature);

    /// <summary>The payload ranges, normalised as the locator's, once IEND was reached; otherwise <see langword="false"/>.</summary>
    public bool TryGetPayload(out ByteRange[] ranges)
    {
        ranges = [];
        if (_result != PngChunkStep.End || !MediaContent.TryNormalize(_ranges, _length, _options))
        {
            return false;
        }

        ranges = [.. _ranges];
        return true;
    }

    /// <summary>Takes the bytes read at <paramref name="offset"/>.</summary>
    public void Feed(long offset, ReadOnlySpan<byte> bytes)
    {
        if (_result is not null || offset > _seen || offset + bytes.Length <= _seen)
        {
            return;
        }

        var span = bytes[(int)(_seen - offset)..];
        if (_seen < PngChunks.Signature.Length)
        {
            var signature = PngChunks.Signature[(int)_seen..];
            var take = Math.Min(signature.Length, span.Length);
            if (!span[..take].SequenceEqual(signature[..take]))
            {
                _result = PngChunkStep.Invalid;
                return;
            }

            Consume(ref span, take);
        }

        while (!span.IsEmpty && _result is null)
        {
            if (_seen < _next)
            {
                Consume(ref span, (int)Math.Min(_next - _seen, span.Length)); // chunk data and CRC: not needed
                continue;
            }

            var take = Math.Min(PngChunks.HeaderSize - _headerFill, span.Length);
            span[..take].CopyTo(_header.AsSpan(_headerFill));
            _headerFill += take;
            Consume(ref span, take);
            if (_headerFill < PngChunks.HeaderSize)
            {
                return; // the header continues in the next read
            }

            _headerFill = 0;
            if (++_steps > _options.MaxSteps)
            {
                _result = PngChunkStep.Invalid;
                return;
            }

            var step = _chunks.Visit(_header, _next, _length, _options.MaxRanges, _ranges, out _next);
            if (step != PngChunkStep.Next)
            {
                _result = step;
            }

            if (_ranges.Count > _reserved)
            {
                if (!_budget.TryTake(_budgetStep))
                {
                    Release(); // over the scan's allowance: located the usual way if needed
                    _result = PngChunkStep.Invalid;
                    return;
                }

                _reserved += _budgetStep;
                _budgetStep = Math.Min(_budgetStep * 2, MaxBudgetStep);
            }
        }
    }

    /// <summary>Drops the chunk list and gives its ranges back to the budget (the stream is done with).</summary>
    public void Release()
    {
        _budget.Return(_reserved);
        _reserved = 0;
        _ranges.Clear();
        _ranges.TrimExcess();
        _result ??= PngChunkStep.Invalid;
    }

    private void Consume(ref ReadOnlySpan<byte> span, int count)
    {
        span = span[count..];
        _seen += count;
    }
}
