using Dedup.Core.Caching;
using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Enumeration;
using Microsoft.Data.Sqlite;

namespace Dedup.Core.Tests.Caching;

/// <summary>
/// Review 10: schema 3's merge against a model. Random saves (upserts and removals in several chunks, between chunks'
/// ranges, before the first and past the last, devices and inodes at and above 2^63) must leave exactly the model's
/// entries, and chunk rows whose ranges match their blobs, sorted as SQLite sorts them and disjoint.
/// </summary>
public sealed class CacheChunkMergeTests : IDisposable
{
    private static readonly HashCacheScope Scope = new(CacheSession.Format, 42);

    private readonly CacheFixture _fixture = new();

    public void Dispose() => _fixture.Dispose();

    private SqliteHashCache Cache() => new(_fixture.CachePath) { BusyTimeout = TimeSpan.FromSeconds(5) };

    private static readonly ulong[] Devices = [7, 8, (1UL << 63) - 1, 1UL << 63, (1UL << 63) + 5, ulong.MaxValue];

    private static FileIdentity RandomIdentity(Random random, ulong? only = null)
    {
        var device = only ?? Devices[random.Next(Devices.Length)];
        var inode = random.Next(4) switch
        {
            0 => (ulong)random.Next(1, 200_000),
            1 => (1UL << 63) - 100_000 + (ulong)random.Next(200_000), // across 2^63
            2 => ulong.MaxValue - (ulong)random.Next(100_000),
            _ => (ulong)random.NextInt64(),
        };
        return new FileIdentity(device, inode);
    }

    private static HashCacheEntry Entry(FileIdentity identity, Random random, int round)
    {
        var entry = new HashCacheEntry(new FileStamp(identity, random.Next(1, 1 << 20), round, round + 1), (ulong)random.NextInt64(), 0, 0, Scope.Roots);
        if (random.Next(3) == 0)
        {
            var digest = new byte[32];
            random.NextBytes(digest);
            entry = entry with { DigestAlgorithm = Dedup.Core.Comparison.DuplicateHashAlgorithm.XxHash128, Digest = digest };
        }

        return entry;
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Random_saves_across_chunks_and_signs_leave_exactly_the_models_entries_in_disjoint_sorted_chunks(int seed)
    {
        var random = new Random(seed);
        var model = new Dictionary<FileIdentity, HashCacheEntry>();
        for (var round = 0; round < 12; round++)
        {
            var upserts = new Dictionary<FileIdentity, HashCacheEntry>();
            var removals = new HashSet<FileIdentity>();
            // Every other round on one device only: the save's sort of primitive inodes, not of keys.
            ulong? only = round % 2 == 1 ? Devices[round / 2 % Devices.Length] : null;
            var fresh = round == 0 ? 3 * SqliteChunks.Max + 123 : random.Next(0, round % 4 == 0 ? SqliteChunks.Max + 500 : 2000);
            for (var i = 0; i < fresh; i++)
            {
                var id = RandomIdentity(random, only);
                upserts[id] = Entry(id, random, round);
            }

            var existing = model.Keys.ToArray();
            for (var i = 0; i < Math.Min(existing.Length, random.Next(0, 3000)); i++)
            {
                var id = existing[random.Next(existing.Length)];
                if (random.Next(2) == 0 && (only is null || id.Device == only))
                {
                    upserts[id] = Entry(id, random, round);
                }
                else if (!upserts.ContainsKey(id))
                {
                    removals.Add(id);
                }
            }

            for (var i = 0; i < 200; i++)
            {
                var id = RandomIdentity(random);
                if (!upserts.ContainsKey(id))
                {
                    removals.Add(id); // mostly not stored: between ranges, before the first, past the last
                }
            }

            Cache().Save(Scope, [.. upserts.Values], [.. removals]);
            foreach (var id in removals)
            {
                model.Remove(id);
            }

            foreach (var (id, entry) in upserts)
            {
                model[id] = entry;
            }

            var loaded = Cache().Load(Scope).Entries;
            Assert.Equal(model.Count, loaded.Count);
            Assert.Equal(model.Count, loaded.Select(e => e.Stamp.Identity).Distinct().Count());
            foreach (var entry in loaded)
            {
                Assert.True(model.TryGetValue(entry.Stamp.Identity, out var expected), $"round {round}: {entry.Stamp.Identity} kept");
                Assert.Equal(expected.Stamp, entry.Stamp);
                Assert.Equal(expected.Probe, entry.Probe);
                Assert.Equal(expected.Digest.ToArray(), entry.Digest.ToArray());
            }

            AssertChunksWellFormed(round);
        }
    }

    [Fact]
    public async Task A_load_never_returns_entries_another_format_wrote_while_it_read()
    {
        // Two versions of the library (two formats) share one file: each save of the other format empties it first.
        var other = Scope with { Format = Scope.Format + ";other" };
        HashCacheEntry[] Marked(ulong probe) => [.. Enumerable.Range(1, 50).Select(i => new HashCacheEntry(new FileStamp(new FileIdentity(7, (ulong)i), 1, 2, 3), probe, 0, 0, Scope.Roots))];
        Cache().Save(Scope, Marked(1), []);
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(6));
        var writer = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                Cache().Save(other, Marked(2), []);
                Cache().Save(Scope, Marked(1), []);
            }
        });

        var loads = 0;
        while (!stop.IsCancellationRequested)
        {
            var entries = Cache().Load(Scope).Entries;
            loads++;
            Assert.All(entries, e => Assert.Equal(1UL, e.Probe)); // probe 2 is the other format's key: never this scan's
        }

        await writer;
        Assert.True(loads > 10, $"{loads} loads");
    }

    [Fact]
    public async Task Two_processes_saving_into_the_same_chunks_at_once_lose_none_of_each_others_entries()
    {
        // Interleaved identities (one writer even inodes, the other odd), so every save merges into chunks the other
        // just rewrote or split; each also prunes some of its own earlier entries.
        var expected = new System.Collections.Concurrent.ConcurrentDictionary<FileIdentity, ulong>();
        async Task Writer(int parity)
        {
            await Task.Yield();
            var random = new Random(parity + 10);
            var mine = new List<FileIdentity>();
            for (var round = 0; round < 25; round++)
            {
                var upserts = new Dictionary<FileIdentity, HashCacheEntry>();
                for (var i = 0; i < 800; i++)
                {
                    var id = new FileIdentity(Devices[random.Next(3)], (ulong)(random.Next(0, 50_000) * 2 + parity));
                    upserts[id] = new HashCacheEntry(new FileStamp(id, 1, round, round + 1), (ulong)random.NextInt64(), 0, 0, Scope.Roots);
                }

                var removals = mine.Where(_ => random.Next(10) == 0).Where(id => !upserts.ContainsKey(id)).Distinct().ToArray();
                Cache().Save(Scope, [.. upserts.Values], removals);
                foreach (var id in removals)
                {
                    expected.TryRemove(id, out _);
                    mine.Remove(id);
                }

                foreach (var (id, entry) in upserts)
                {
                    expected[id] = entry.Probe;
                    mine.Add(id);
                }
            }
        }

        await Task.WhenAll(Task.Run(() => Writer(0)), Task.Run(() => Writer(1)));
        var loaded = Cache().Load(Scope).Entries;
        Assert.Equal(expected.Count, loaded.Count);
        Assert.All(loaded, e => Assert.Equal(expected[e.Stamp.Identity], e.Probe));
        AssertChunksWellFormed(-1);
    }

    [Fact]
    public void An_entry_whose_digest_algorithm_is_not_a_known_value_does_not_damage_its_chunk()
    {
        // HashCacheEntry is public: any enum value may come in. Stored as the value plus one, -1 became 0 ("no digest")
        // while its 32 digest bytes were still written: the blob still passed its checksum and layout check, read back
        // with that entry's digest gone and the next entry misread (device 0, inode 0, its stamp from the digest's zeros).
        var random = new Random(5);
        var entries = Enumerable.Range(1, 100).Select(i => Entry(new FileIdentity(7, (ulong)i), random, 0)).ToArray();
        entries[50] = entries[50] with { DigestAlgorithm = (Dedup.Core.Comparison.DuplicateHashAlgorithm)(-1), Digest = new byte[32] };
        Cache().Save(Scope, entries, []);

        var snapshot = Cache().Load(Scope);
        Assert.Empty(snapshot.Warnings);
        Assert.Equal(entries.Select(e => e.Stamp).OrderBy(s => s.Identity.FileId), snapshot.Entries.Select(e => e.Stamp).OrderBy(s => s.Identity.FileId)); // no entry misread
        Assert.Equal(entries[50].DigestAlgorithm, snapshot.Entries.Single(e => e.Stamp.Identity == entries[50].Stamp.Identity).DigestAlgorithm);
    }

    private void AssertChunksWellFormed(int round)
    {
        using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = _fixture.CachePath, Pooling = false }.ToString());
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = "SELECT first_dev, first_ino, last_dev, last_ino, count, data FROM chunks ORDER BY first_dev, first_ino";
        using var reader = command.ExecuteReader();
        SqliteChunks.Key? previousLast = null;
        while (reader.Read())
        {
            var first = new SqliteChunks.Key(reader.GetInt64(0), reader.GetInt64(1));
            var last = new SqliteChunks.Key(reader.GetInt64(2), reader.GetInt64(3));
            var entries = Array.Empty<HashCacheEntry>();
            var n = 0;
            Assert.True(SqliteChunks.TryDecode((byte[])reader[5], ref entries, ref n), $"round {round}: a chunk does not decode");
            Assert.Equal(reader.GetInt64(4), n);
            Assert.InRange(n, 1, SqliteChunks.Max);
            Assert.Equal(first, SqliteChunks.Key.Of(entries[0].Stamp.Identity));
            Assert.Equal(last, SqliteChunks.Key.Of(entries[n - 1].Stamp.Identity));
            for (var i = 1; i < n; i++)
            {
                Assert.True(SqliteChunks.Key.Of(entries[i - 1].Stamp.Identity).CompareTo(SqliteChunks.Key.Of(entries[i].Stamp.Identity)) < 0, $"round {round}: a chunk's entries out of order at {i}");
            }

            if (previousLast is { } p)
            {
                Assert.True(p.CompareTo(first) < 0, $"round {round}: ranges overlap ({p} then {first})");
            }

            previousLast = last;
        }
    }
}
