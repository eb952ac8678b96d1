using System.Buffers.Binary;
using System.IO.Hashing;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;

namespace Dedup.Core.Comparison.Hashing;

/// <summary>A digest of up to 256 bits used as a dictionary key; shorter digests leave the rest zero.</summary>
/// <remarks>
/// Four <see cref="ulong"/>s rather than two 128-bit integers: ReadyToRun does not precompile methods that hold
/// <c>UInt128</c> values, so with them every method keyed by a content hash (the probe, the lockstep partitioner, their
/// dictionaries) was jitted at start-up; and netstandard2.0 has no <c>UInt128</c>.
/// </remarks>
internal readonly record struct ContentHash(ulong A, ulong B = 0, ulong C = 0, ulong D = 0)
{
    public static ContentHash Compute(DuplicateHashAlgorithm algorithm, ReadOnlySpan<byte> data)
    {
        switch (algorithm)
        {
            case DuplicateHashAlgorithm.XxHash3:
                return new ContentHash(XxHash3.HashToUInt64(data));
            case DuplicateHashAlgorithm.Sha256:
                return Sha256.Hash(data);
            default:
                return Xx128(data);
        }
    }

    /// <summary>XXH128 of <paramref name="data"/> (System.IO.Hashing), taken as its 16 canonical bytes.</summary>
    public static ContentHash Xx128(ReadOnlySpan<byte> data)
    {
        Span<byte> digest = stackalloc byte[16];
        XxHash128.Hash(data, digest);
        return From128(digest);
    }

    /// <summary>The current digest of <paramref name="hasher"/>, which is then reset.</summary>
    public static ContentHash TakeXx128(XxHash128 hasher)
    {
        Span<byte> digest = stackalloc byte[16];
        hasher.GetHashAndReset(digest);
        return From128(digest);
    }

    // Through the canonical bytes rather than UInt128: the same code on every target, netstandard2.0 included.
    private static ContentHash From128(ReadOnlySpan<byte> digest) =>
        new(BinaryPrimitives.ReadUInt64BigEndian(digest[8..]), BinaryPrimitives.ReadUInt64BigEndian(digest));

    public static ContentHash FromBytes(ReadOnlySpan<byte> digest32) =>
        new(BinaryPrimitives.ReadUInt64LittleEndian(digest32), BinaryPrimitives.ReadUInt64LittleEndian(digest32[8..]),
            BinaryPrimitives.ReadUInt64LittleEndian(digest32[16..]), BinaryPrimitives.ReadUInt64LittleEndian(digest32[24..]));
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
                return new ContentHash(h3);
            case DuplicateHashAlgorithm.Sha256:
                return _sha!.Finish();
            default:
                return ContentHash.TakeXx128(_xx128!);
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
