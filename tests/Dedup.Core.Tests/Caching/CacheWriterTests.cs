using Dedup.Core.Caching;
using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Enumeration;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Data.Sqlite;

namespace Dedup.Core.Tests.Caching;

/// <summary>
/// The save that writes while a scan runs (<see cref="HashCache.BeginSave"/>), on a real SQLite file: every batch
/// arrives, ids stay consistent across batches, nothing is visible before the commit, and another process's write lock
/// neither stalls nor loses the save.
/// </summary>
public sealed class CacheWriterTests : IDisposable
{
    private static readonly HashCacheScope Scope = new(CacheSession.Format, 42);

    private readonly CacheFixture _fixture = new();

    public void Dispose() => _fixture.Dispose();

    /// <summary>
    /// <paramref name="count"/> entries from inode <paramref name="first"/> on, in no key order; every third is in
    /// partition -1 with one of five classes, the others in partitions and classes of their own; every fifth has a digest.
    /// </summary>
    private static HashCacheEntry[] Entries(int count, ulong first, int seed)
    {
        var random = new Random(seed);
        var entries = new HashCacheEntry[count];
        for (var i = 0; i < count; i++)
        {
            var stamp = new FileStamp(new FileIdentity(7, first + (ulong)i), 100 + i, 1_000 + i, 2_000 + i);
            var shared = i % 3 == 0;
            var entry = new HashCacheEntry(stamp, (ulong)random.NextInt64(), shared ? -1 : -(i + 10), shared ? -(2 + (i % 5)) : -(i + 10 + count), Scope.Roots);
            if (i % 5 == 0)
            {
                var digest = new byte[32];
                random.NextBytes(digest);
                entry = entry with { DigestAlgorithm = Dedup.Core.Comparison.DuplicateHashAlgorithm.XxHash128, Digest = digest };
            }

            entries[i] = entry;
        }

        random.Shuffle(entries);
        return entries;
    }

    private SqliteHashCache Cache(TimeSpan? busyTimeout = null) => new(_fixture.CachePath) { BusyTimeout = busyTimeout ?? TimeSpan.FromSeconds(5) };

    private Dictionary<FileIdentity, HashCacheEntry> Load() => Cache().Load(Scope).Entries.ToDictionary(e => e.Stamp.Identity);

    [Fact]
    public void A_save_in_many_batches_keeps_every_entry_and_gives_equal_negative_ids_one_new_id()
    {
        // More than two chunks' worth, in batches of the scan's size.
        var entries = Entries(SqliteChunks.Max * 2 + 1000, 1, 1);
        using (var writer = Cache().BeginSave(Scope))
        {
            for (var start = 0; start < entries.Length; start += 4096)
            {
                writer.Write(entries.AsSpan(start, Math.Min(4096, entries.Length - start)));
            }

            writer.Commit([]);
        }

        var loaded = Load();
        Assert.Equal(entries.Length, loaded.Count);
        var partitions = new Dictionary<long, long>();
        var classes = new Dictionary<long, long>();
        foreach (var entry in entries)
        {
            var row = loaded[entry.Stamp.Identity];
            Assert.Equal(entry.Stamp, row.Stamp);
            Assert.Equal(entry.Probe, row.Probe);
            Assert.Equal(entry.Digest.ToArray(), row.Digest.ToArray());
            Assert.True(row.Partition > 0 && row.Class > 0);

            // The same negative id, in whichever batch, became the same new id; different ones different ids.
            Assert.Equal(partitions.TryAdd(entry.Partition, row.Partition) ? row.Partition : partitions[entry.Partition], row.Partition);
            Assert.Equal(classes.TryAdd(entry.Class, row.Class) ? row.Class : classes[entry.Class], row.Class);
        }

        Assert.Equal(partitions.Count, partitions.Values.Distinct().Count());
        Assert.Equal(classes.Count, classes.Values.Distinct().Count());
        Assert.Empty(partitions.Values.Intersect(classes.Values)); // one counter for both

        // A later save's new ids are new: none of the first save's.
        var used = partitions.Values.Concat(classes.Values).ToHashSet();
        using (var writer = Cache().BeginSave(Scope))
        {
            writer.Write(Entries(10, 1_000_000, 2));
            writer.Commit([]);
        }

        var later = Load().Values.Where(e => e.Stamp.Identity.FileId >= 1_000_000).ToList();
        Assert.Equal(10, later.Count);
        Assert.DoesNotContain(later, e => used.Contains(e.Partition) || used.Contains(e.Class));
    }

    [Fact]
    public void Nothing_a_save_wrote_is_seen_before_its_commit_and_a_save_disposed_uncommitted_leaves_no_trace()
    {
        var before = Entries(100, 1, 3);
        using (var writer = Cache().BeginSave(Scope))
        {
            writer.Write(before);
            writer.Commit([]);
        }

        using (var writer = Cache().BeginSave(Scope))
        {
            writer.Write(Entries(SqliteChunks.Max + 10, 10_000, 4));
            Assert.Equal(100, Load().Count);
        }

        Assert.Equal(100, Load().Count);
        Assert.Equal(100, _fixture.CountEntries());
    }

    [Fact]
    public void A_save_that_meets_another_writer_keeps_its_entries_without_waiting_and_writes_them_at_the_commit()
    {
        using (var writer = Cache().BeginSave(Scope))
        {
            writer.Write(Entries(10, 1, 5));
            writer.Commit([]);
        }

        using var holder = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = _fixture.CachePath, Pooling = false }.ToString());
        holder.Open();
        using (var command = holder.CreateCommand())
        {
            command.CommandText = "BEGIN IMMEDIATE";
            command.ExecuteNonQuery();
        }

        var started = System.Diagnostics.Stopwatch.StartNew();
        using var save = Cache(busyTimeout: TimeSpan.FromSeconds(30)).BeginSave(Scope);
        save.Write(Entries(SqliteChunks.Max + 10, 10_000, 6));
        Assert.True(started.Elapsed < TimeSpan.FromSeconds(10), $"the save waited {started.Elapsed} for the other writer");

        using (var command = holder.CreateCommand())
        {
            command.CommandText = "COMMIT";
            command.ExecuteNonQuery();
        }

        // Pruning still applies at the commit: one of the first save's entries goes.
        save.Commit([new FileIdentity(7, 1)]);
        var loaded = Load();
        Assert.Equal(9 + SqliteChunks.Max + 10, loaded.Count);
        Assert.False(loaded.ContainsKey(new FileIdentity(7, 1)));
    }

    [Fact]
    public void A_later_save_rewrites_only_the_chunks_its_changes_fall_in_and_splits_a_chunk_that_grew()
    {
        var target = SqliteChunks.Target;
        Save(Entries(3 * target, 1, 7), []);
        var before = Chunks();
        Assert.Equal(3, before.Count); // more than one chunk holds: split evenly

        // A changed file in the first chunk, a pruned one and a new one (past every range) in the last: the middle stays.
        var changed = Entries(1, 5, 8)[0] with { Stamp = new FileStamp(new FileIdentity(7, 5), 1, 2, 3) };
        var added = Entries(1, 10_000_000, 9)[0];
        var pruned = new FileIdentity(7, (ulong)(2 * target) + 100);
        Save([changed, added], [pruned]);
        var after = Chunks();
        Assert.Equal(3, after.Count);
        Assert.Contains(before[1], after); // same row id, range and blob
        Assert.DoesNotContain(before[0], after);
        Assert.DoesNotContain(before[2], after);

        var loaded = Load();
        Assert.Equal(3 * target, loaded.Count);
        Assert.Equal(changed.Stamp, loaded[changed.Stamp.Identity].Stamp);
        Assert.True(loaded.ContainsKey(added.Stamp.Identity));
        Assert.False(loaded.ContainsKey(pruned));

        // Entries enough to push the last chunk past the maximum: it is split, the ranges stay disjoint and in order.
        Save(Entries(SqliteChunks.Max, 20_000_000, 10), []);
        var split = Chunks();
        Assert.True(split.Count >= 5, $"{split.Count} chunks");
        Assert.All(split, c => Assert.InRange(c.Count, 1, SqliteChunks.Max));
        for (var i = 1; i < split.Count; i++)
        {
            Assert.True(split[i - 1].Last < split[i].First, $"chunk {i - 1} ends at {split[i - 1].Last}, chunk {i} starts at {split[i].First}");
        }

        Assert.Equal(3 * target + SqliteChunks.Max, Load().Count);
        Assert.Equal(3 * target + SqliteChunks.Max, _fixture.CountEntries());
    }

    private void Save(HashCacheEntry[] entries, FileIdentity[] removals)
    {
        using var writer = Cache().BeginSave(Scope);
        writer.Write(entries);
        writer.Commit(removals);
    }

    /// <summary>The file's chunk rows by first inode (every test entry is on device 7): id, range, count and a hash of the blob.</summary>
    private List<(long Id, long First, long Last, long Count, string Data)> Chunks()
    {
        using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = _fixture.CachePath, Pooling = false }.ToString());
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = "SELECT id, first_ino, last_ino, count, data FROM chunks ORDER BY first_dev, first_ino";
        using var reader = command.ExecuteReader();
        var chunks = new List<(long, long, long, long, string)>();
        while (reader.Read())
        {
            chunks.Add((reader.GetInt64(0), reader.GetInt64(1), reader.GetInt64(2), reader.GetInt64(3), Convert.ToHexString(System.Security.Cryptography.SHA256.HashData((byte[])reader[4]))));
        }

        return chunks;
    }

    [LinuxFact]
    public async Task A_first_run_of_more_entries_than_a_batch_saves_every_one_and_a_cancelled_run_commits_none()
    {
        // More candidates than one hand-over batch: the store is written while the compare stage runs.
        var files = CacheWriteQueue.BatchSize + 500;
        for (var i = 0; i < files; i++)
        {
            _fixture.Tree.Write($"d{i % 16}/f{i}", BitConverter.GetBytes(i / 2)); // pairs of equal 4-byte files
        }

        await CacheFixture.LetSettleAsync();

        // Cancelled while the writer holds its first batch: nothing is written.
        using (var cts = new CancellationTokenSource())
        {
            var gated = new GatedCache(Cache());
            var scan = Scan.RunAsync(b => b.AddRoot(_fixture.Tree.Root).UseCache(gated), cts.Token);
            Assert.True(gated.Writing.Wait(TimeSpan.FromSeconds(60)), "the writer never got a batch");
            await cts.CancelAsync();
            gated.Release.Set();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => scan);
            Assert.Equal(CacheWriteQueue.BatchSize, gated.Inserted);
        }

        Assert.False(File.Exists(_fixture.CachePath)); // the save opens the file only at its commit

        var (groups, summary) = await _fixture.ScanAsync();
        Assert.Equal(files / 2, groups.Count);
        Assert.Equal(files, summary.Cache!.Written);
        Assert.Empty(summary.Cache.Warnings);
        Assert.Equal(files, _fixture.CountEntries());
        Assert.Equal((long)SqliteStore.PageSize, CacheFixture.Scalar(_fixture.CachePath, "PRAGMA page_size")); // a new file: large pages, few writes

        var (again, rescan) = await _fixture.ScanAsync();
        Assert.Equal(Scan.Canonical(groups), Scan.Canonical(again));
        Assert.Equal(files, rescan.Cache!.Hits);
        Assert.Equal(0, rescan.BytesRead);
    }

    [LinuxFact]
    public async Task A_rescan_after_edits_reads_only_the_changed_files_and_the_next_one_reads_nothing()
    {
        // More files than two chunks hold, so the edits' chunks are merged with entries they do not change.
        var files = SqliteChunks.Max * 2 + 100;
        for (var i = 0; i < files; i++)
        {
            _fixture.Tree.Write($"d{i % 16}/f{i}", BitConverter.GetBytes(i / 2)); // pairs of equal 4-byte files
        }

        await CacheFixture.LetSettleAsync();
        var (_, first) = await _fixture.ScanAsync();
        Assert.Equal(files, first.Cache!.Written);

        // Two edits (one file of a pair gets bytes of its own, one a third copy's) and a deletion.
        _fixture.Tree.Write("d0/f0", BitConverter.GetBytes(-1));
        _fixture.Tree.Write("d5/f5", BitConverter.GetBytes(8 / 2)); // now equal to f8 and f9
        File.Delete(_fixture.Tree.PathOf("d7/f7"));
        await CacheFixture.LetSettleAsync();
        var expected = await _fixture.BaselineAsync();

        var (groups, rescan) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(groups));
        Assert.Equal(2, rescan.Cache!.Misses);
        Assert.Equal(files - 3, rescan.Cache.Hits);
        Assert.Equal(1, rescan.Cache.Pruned);
        Assert.True(rescan.BytesRead <= 5 * 4, $"{rescan.BytesRead} bytes read"); // the edited files and f8, f9 at most
        Assert.Empty(rescan.Cache.Warnings);

        // The merged chunks kept every entry they did not change.
        var (again, next) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(again));
        Assert.Equal(0, next.Cache!.Misses);
        Assert.Equal(0, next.BytesRead);
        Assert.Equal(files - 1, _fixture.CountEntries());
    }

    [LinuxFact]
    public async Task A_save_that_cannot_open_the_file_is_one_warning_and_the_results_stay_exact()
    {
        var content = TempTree.RandomBytes(20_000, 7);
        _fixture.Tree.Write("a", content);
        _fixture.Tree.Write("b", content);
        _fixture.Tree.Write("c", TempTree.RandomBytes(20_000, 8));
        await CacheFixture.LetSettleAsync();
        var expected = await _fixture.BaselineAsync();

        // No such folder: the load finds no file (an empty cache), the writer cannot create one.
        var path = Path.Combine(_fixture.CacheFolder.Root, "missing", "cache.db");
        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(_fixture.Tree.Root).UseCache(new SqliteHashCache(path)));
        Assert.Equal(expected, Scan.Canonical(groups));
        Assert.Empty(summary.Errors);
        Assert.Equal(0, summary.Cache!.Written);
        var warning = Assert.Single(summary.Cache.Warnings);
        Assert.Contains("not saved", warning, StringComparison.Ordinal);
        Assert.False(File.Exists(path));
    }

    /// <summary>The real SQLite cache, whose save holds its first batch until the test lets it go (after writing it).</summary>
    private sealed class GatedCache(SqliteHashCache inner) : HashCache
    {
        public ManualResetEventSlim Writing { get; } = new();

        public ManualResetEventSlim Release { get; } = new();

        public int Inserted { get; private set; }

        public override string Description => inner.Description;

        public override HashCacheSnapshot Load(HashCacheScope scope, CancellationToken cancellationToken = default) => inner.Load(scope, cancellationToken);

        public override HashCacheWriter BeginSave(HashCacheScope scope) => new Writer(this, inner.BeginSave(scope));

        private sealed class Writer(GatedCache gate, HashCacheWriter inner) : HashCacheWriter
        {
            public override void Write(ReadOnlySpan<HashCacheEntry> entries, CancellationToken cancellationToken = default)
            {
                inner.Write(entries, cancellationToken);
                gate.Inserted += entries.Length;
                gate.Writing.Set();
                gate.Release.Wait(TimeSpan.FromSeconds(60));
            }

            public override void Commit(IReadOnlyList<FileIdentity> removals, CancellationToken cancellationToken = default) =>
                inner.Commit(removals, cancellationToken);

            protected override void Dispose(bool disposing) => inner.Dispose();
        }
    }
}
