using System.Security.Cryptography;

namespace Dedup.Core.Comparison.Hashing;

/// <summary>A digest of up to 256 bits used as a dictionary key; shorter digests leave the rest zero.</summary>
internal readonly record struct ContentHash(UInt128 Low, UInt128 High)
{
    public static ContentHash Compute(DuplicateHashAlgorithm algorithm, ReadOnlySpan<byte> data)
    {
        switch (algorithm)
        {
            case DuplicateHashAlgorithm.XxHash3:
                return new ContentHash(XxHash3.HashToUInt64(data), 0);
            case DuplicateHashAlgorithm.Sha256:
                Span<byte> digest = stackalloc byte[32];
                SHA256.HashData(data, digest);
                return FromBytes(digest);
            default:
                return new ContentHash(XxHash128.HashToUInt128(data), 0);
        }
    }

    public static ContentHash FromBytes(ReadOnlySpan<byte> digest32) =>
        new(System.Runtime.InteropServices.MemoryMarshal.Read<UInt128>(digest32), System.Runtime.InteropServices.MemoryMarshal.Read<UInt128>(digest32[16..]));
}

/// <summary>Hashes a stream of chunks with the chosen algorithm, reusable after <see cref="Reset"/>.</summary>
internal sealed class IncrementalContentHasher : IDisposable
{
    private readonly DuplicateHashAlgorithm _algorithm;
    private readonly XxHash128? _xx128;
    private readonly XxHash3? _xx3;
    private readonly IncrementalHash? _sha;

    public IncrementalContentHasher(DuplicateHashAlgorithm algorithm)
    {
        _algorithm = algorithm;
        switch (algorithm)
        {
            case DuplicateHashAlgorithm.XxHash3:
                _xx3 = new XxHash3();
                break;
            case DuplicateHashAlgorithm.Sha256:
                _sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
                break;
            default:
                _xx128 = new XxHash128();
                break;
        }
    }

    public void Append(ReadOnlySpan<byte> data)
    {
        if (_xx128 is not null)
        {
            _xx128.Append(data);
        }
        else if (_xx3 is not null)
        {
            _xx3.Append(data);
        }
        else
        {
            _sha!.AppendData(data);
        }
    }

    /// <summary>Returns the digest and resets for the next input.</summary>
    public ContentHash Finish()
    {
        switch (_algorithm)
        {
            case DuplicateHashAlgorithm.XxHash3:
                var h3 = _xx3!.GetCurrentHashAsUInt64();
                _xx3.Reset();
                return new ContentHash(h3, 0);
            case DuplicateHashAlgorithm.Sha256:
                Span<byte> digest = stackalloc byte[32];
                _sha!.GetHashAndReset(digest);
                return ContentHash.FromBytes(digest);
            default:
                var h = _xx128!.GetCurrentHashAsUInt128();
                _xx128.Reset();
                return new ContentHash(h, 0);
        }
    }

    public void Reset()
    {
        _ = Finish();
    }

    public void Dispose() => _sha?.Dispose();
}
