using System.Runtime.CompilerServices;
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
                return Sha256.Hash(data);
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
    private readonly Sha256? _sha;

    public IncrementalContentHasher(DuplicateHashAlgorithm algorithm)
    {
        _algorithm = algorithm;
        switch (algorithm)
        {
            case DuplicateHashAlgorithm.XxHash3:
                _xx3 = new XxHash3();
                break;
            case DuplicateHashAlgorithm.Sha256:
                _sha = new Sha256();
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
            _sha!.Append(data);
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
                return _sha!.Finish();
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

/// <summary>
/// SHA-256 kept behind its own non-inlined methods: the crypto assembly (≈1 MiB resident) is then loaded only
/// when a scan asks for SHA-256, not by every scan that compiles the hashing switch.
/// </summary>
internal sealed class Sha256 : IDisposable
{
    private readonly object _hash = Create();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ContentHash Hash(ReadOnlySpan<byte> data)
    {
        Span<byte> digest = stackalloc byte[32];
        SHA256.HashData(data, digest);
        return ContentHash.FromBytes(digest);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public void Append(ReadOnlySpan<byte> data) => ((IncrementalHash)_hash).AppendData(data);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public ContentHash Finish()
    {
        Span<byte> digest = stackalloc byte[32];
        ((IncrementalHash)_hash).GetHashAndReset(digest);
        return ContentHash.FromBytes(digest);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public void Dispose() => ((IncrementalHash)_hash).Dispose();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static object Create() => IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
}
