using Dedup.Core.Caching;
using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Caching;

/// <summary>
/// What a scan does with what a store gives it (a store of your own may give anything): a read-only snapshot is never
/// written to, an entry without a change time is never trusted, and of two entries for one file only the first counts,
/// so a stale one behind it neither hides the good one nor gets the file pruned. Stores wrap the real SQLite file.
/// </summary>
public sealed class CacheStoreContractTests : IDisposable
{
    private static readonly byte[] Content = TempTree.RandomBytes(5000, 31);

    private readonly CacheFixture _fixture = new();

    private TempTree Tree => _fixture.Tree;

    public void Dispose() => _fixture.Dispose();

    private async Task<ScanSummary> ScanThroughAsync(HashCache store)
    {
        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(Tree.Root).UseCache(store));
        Assert.Equal(await _fixture.BaselineAsync(), Scan.Canonical(groups));
        return summary;
    }

    private async Task<ScanSummary> FirstScanAsync()
    {
        Tree.Write("a", Content);
        Tree.Write("b", Content);
        await CacheFixture.LetSettleAsync();
        var (_, summary) = await _fixture.ScanAsync();
        Assert.Equal(2, summary.Cache!.Written);
        return summary;
    }

    [LinuxFact]
    public async Task A_read_only_snapshot_is_never_written_though_the_scan_learned_something()
    {
        await FirstScanAsync();
        Tree.Write("c", Content); // new: a writable cache would gain an entry
        await CacheFixture.LetSettleAsync();
        var store = new Wrapped(new SqliteHashCache(_fixture.CachePath), readOnly: true);

        var summary = await ScanThroughAsync(store);

        Assert.Equal(2, summary.Cache!.Hits);
        Assert.Equal(0, summary.Cache.Written);
        Assert.Equal(0, store.Saves);
        Assert.Equal(2, _fixture.CountEntries());
    }

    [LinuxFact]
    public async Task A_read_only_snapshot_is_not_written_even_past_one_batch_of_new_entries()
    {
        await FirstScanAsync();
        for (var i = 0; i < 4200; i++) // past the 4,096 entries at which a writable cache starts its writer
        {
            Tree.Write($"many/{i:D4}", TempTree.RandomBytes(64, 1000 + i));
        }

        await CacheFixture.LetSettleAsync();
        var store = new Wrapped(new SqliteHashCache(_fixture.CachePath), readOnly: true);

        var summary = await ScanThroughAsync(store);

        Assert.Equal(0, summary.Cache!.Written);
        Assert.Equal(0, store.Saves);
        Assert.Equal(2, _fixture.CountEntries());
    }

    [LinuxFact]
    public async Task An_entry_without_a_change_time_is_not_trusted()
    {
        await FirstScanAsync();
        var store = new Wrapped(new SqliteHashCache(_fixture.CachePath), transform: entries => entries.Select(e => e with { Stamp = e.Stamp with { ChangeTimeNs = 0 } }).ToList());

        var summary = await ScanThroughAsync(store);

        Assert.Equal(0, summary.Cache!.Hits);
        Assert.Equal(2, summary.Cache.Misses);
    }

    [LinuxFact]
    public async Task Of_two_entries_for_one_file_the_first_counts_and_the_stale_second_prunes_nothing()
    {
        await FirstScanAsync();
        var stale = new Wrapped(new SqliteHashCache(_fixture.CachePath), transform: entries =>
            [.. entries, .. entries.Select(e => e with { Stamp = e.Stamp with { LastWriteTimeNs = e.Stamp.LastWriteTimeNs - 1 } })]);

        var summary = await ScanThroughAsync(stale);

        Assert.Equal(2, summary.Cache!.Hits); // the good entries, not the stale ones behind them
        Assert.Equal(0, summary.Cache.Pruned);
        var (_, after) = await _fixture.ScanAsync();
        Assert.Equal(2, after.Cache!.Hits); // nothing of the two files was pruned from the store
        Assert.Equal(2, _fixture.CountEntries());
    }

    [LinuxFact]
    public async Task Stored_digests_are_the_contents_sha256_and_an_unchanged_file_keeps_its_own_when_compared_again()
    {
        static void Sha256(DuplicateFinderBuilder b) => b.UseComparer(Dedup.Core.Comparison.ComparerStrategies.Hashing).UseHashAlgorithm(Dedup.Core.Comparison.DuplicateHashAlgorithm.Sha256);
        static void Bytewise(DuplicateFinderBuilder b) => b.UseComparer(Dedup.Core.Comparison.ComparerStrategies.Bytewise).UseHashAlgorithm(Dedup.Core.Comparison.DuplicateHashAlgorithm.Sha256);
        var content = TempTree.RandomBytes(300_000, 32);
        Tree.Write("a", content);
        Tree.Write("b", content);
        await CacheFixture.LetSettleAsync();
        await _fixture.ScanAsync(Sha256); // a and b hashed whole: their digests are stored
        Tree.Write("c", content); // a new copy: the next scan compares all three again, byte for byte this time
        await CacheFixture.LetSettleAsync();
        await _fixture.ScanAsync(Bytewise);
        IReadOnlyList<HashCacheEntry> stored = [];
        var capture = new Wrapped(new SqliteHashCache(_fixture.CachePath), transform: entries => [.. stored = entries]);

        await ScanThroughAsync(capture);

        var expected = Dedup.Core.Comparison.Hashing.ContentHash.Compute(Dedup.Core.Comparison.DuplicateHashAlgorithm.Sha256, content);
        var withDigest = stored.Where(e => e.Digest.Length != 0).ToArray();
        Assert.Equal(2, withDigest.Length); // a and b kept theirs through the bytewise scan; c was never hashed
        Assert.All(withDigest, e =>
        {
            Assert.Equal(Dedup.Core.Comparison.DuplicateHashAlgorithm.Sha256, e.DigestAlgorithm);
            Assert.Equal(expected, Dedup.Core.Comparison.Hashing.ContentHash.FromBytes(e.Digest.Span));
        });
    }

    /// <summary>A store that hands the scan the real file's entries, changed by <c>transform</c>, as a list (not the store's array).</summary>
    private sealed class Wrapped(HashCache inner, bool readOnly = false, Func<IReadOnlyList<HashCacheEntry>, List<HashCacheEntry>>? transform = null) : HashCache
    {
        public int Saves { get; private set; }

        public override string Description => inner.Description;

        public override HashCacheSnapshot Load(HashCacheScope scope, CancellationToken cancellationToken = default)
        {
            var snapshot = inner.Load(scope, cancellationToken);
            return snapshot with { Entries = transform?.Invoke(snapshot.Entries) ?? [.. snapshot.Entries], IsReadOnly = readOnly || snapshot.IsReadOnly };
        }

        public override HashCacheWriter BeginSave(HashCacheScope scope)
        {
            Saves++;
            return inner.BeginSave(scope);
        }
    }
}
