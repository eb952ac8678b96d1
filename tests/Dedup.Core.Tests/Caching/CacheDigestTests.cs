using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Caching;

/// <summary>
/// The whole-content digests a cache keeps are the files' real digests: a later scan that trusts hashes settles
/// unchanged files from them without reading, so a digest stored wrong (all zeros, or another file's) would make a
/// group of files that differ. Two pairs of copies are cached by two scans of their own folders; they share size,
/// prefix and suffix, so a scan of both meets all four in one probe bucket that no earlier comparison settled.
/// </summary>
public sealed class CacheDigestTests : IDisposable
{
    private readonly CacheFixture _fixture = new();

    private TempTree Tree => _fixture.Tree;

    public void Dispose() => _fixture.Dispose();

    private static void Hashing(DuplicateFinderBuilder builder) => builder.UseComparer(ComparerStrategies.Hashing);

    private static void TrustingHashes(DuplicateFinderBuilder builder) => builder.UseComparer(ComparerStrategies.Hashing).TrustHashes();

    [LinuxFact]
    public async Task Cached_digests_tell_two_pairs_apart_when_hashes_are_trusted_and_nothing_is_read()
    {
        var x = TempTree.RandomBytes(200_000, 11);
        var y = (byte[])x.Clone();
        y[100_000] ^= 0xFF; // same size, prefix and suffix: the probes cannot tell x from y
        Tree.Write("x/1", x);
        Tree.Write("x/2", x);
        Tree.Write("y/1", y);
        Tree.Write("y/2", y);
        await CacheFixture.LetSettleAsync();
        var expected = await _fixture.BaselineAsync(Hashing);
        Assert.Equal(2, expected.Count);

        var (xs, _) = await _fixture.ScanAsync(Hashing, Tree.PathOf("x"));
        var (ys, _) = await _fixture.ScanAsync(Hashing, Tree.PathOf("y"));
        Assert.Single(xs);
        Assert.Single(ys);

        var (both, summary) = await _fixture.ScanAsync(TrustingHashes);

        Assert.Equal(expected, Scan.Canonical(both));
        Assert.Equal(4, summary.Cache!.Hits);
        Assert.Equal(0, summary.BytesRead); // settled from the stored digests alone
    }

    [LinuxFact]
    public async Task A_digest_of_another_algorithm_is_not_compared_with_this_scans()
    {
        // The same content cached under two algorithms: SHA-256 and XXH128 digests of it differ, which must not make
        // the four copies two groups when a later XXH128 scan trusts hashes.
        var content = TempTree.RandomBytes(200_000, 13);
        Tree.Write("x/1", content);
        Tree.Write("x/2", content);
        Tree.Write("y/1", content);
        Tree.Write("y/2", content);
        await CacheFixture.LetSettleAsync();
        await _fixture.ScanAsync(b => b.UseComparer(ComparerStrategies.Hashing).UseHashAlgorithm(DuplicateHashAlgorithm.Sha256), Tree.PathOf("x"));
        await _fixture.ScanAsync(Hashing, Tree.PathOf("y"));

        var (both, _) = await _fixture.ScanAsync(TrustingHashes);

        Assert.Equal(4, Assert.Single(both).Files.Count);
    }

    [LinuxFact]
    public async Task Without_trusted_hashes_equal_cached_digests_are_compared_byte_for_byte()
    {
        var x = TempTree.RandomBytes(200_000, 12);
        Tree.Write("x/1", x);
        Tree.Write("y/1", x);
        await CacheFixture.LetSettleAsync();

        await _fixture.ScanAsync(Hashing, Tree.PathOf("x"));
        await _fixture.ScanAsync(Hashing, Tree.PathOf("y"));
        var (both, summary) = await _fixture.ScanAsync(Hashing);

        var group = Assert.Single(both);
        Assert.True(group.VerifiedByBytes);
        Assert.True(summary.BytesRead >= 2 * 200_000, $"{summary.BytesRead} bytes read"); // both read whole to compare them
    }
}
