using System.Security.Cryptography;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Data.Sqlite;

namespace Dedup.Core.Tests.Caching;

/// <summary>A bad cache file costs a warning, never a crash or a wrong result; two scans may share one file at once.</summary>
public sealed class CacheFailureTests : IDisposable
{
    private readonly CacheFixture _fixture = new();

    private TempTree Tree => _fixture.Tree;

    public void Dispose() => _fixture.Dispose();

    private async Task<List<string>> WriteTreeAsync()
    {
        var large = TempTree.RandomBytes(100_000, 1);
        Tree.Write("a", large);
        Tree.Write("b", large);
        large[50_000] ^= 0xFF; // same probes as a and b: only their bytes tell c apart
        Tree.Write("c", large);
        var small = TempTree.RandomBytes(500, 3);
        Tree.Write("d", small);
        Tree.Write("e", small);
        await CacheFixture.LetSettleAsync();
        return await _fixture.BaselineAsync();
    }

    [LinuxFact]
    public async Task A_file_that_is_not_a_database_is_a_warning_and_is_left_untouched()
    {
        var expected = await WriteTreeAsync();
        var garbage = TempTree.RandomBytes(10_000, 7);
        File.WriteAllBytes(_fixture.CachePath, garbage);

        var (groups, summary) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(groups));
        var warning = Assert.Single(summary.Cache!.Warnings);
        Assert.Contains(_fixture.CachePath, warning, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', warning);
        Assert.Empty(summary.Errors);
        Assert.Equal(garbage, File.ReadAllBytes(_fixture.CachePath));
    }

    [LinuxFact]
    public async Task A_cache_that_cannot_be_used_is_logged_as_event_106_not_as_a_file_error()
    {
        var expected = await WriteTreeAsync();
        File.WriteAllBytes(_fixture.CachePath, TempTree.RandomBytes(10_000, 8));
        var logger = new Hosting.CollectingLogger();

        var (groups, summary) = await _fixture.ScanAsync(b => b.UseLogger(logger));
        Assert.Equal(expected, Scan.Canonical(groups));
        var entry = Assert.Single(logger.Entries, e => e.Id.Id == 106);
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Warning, entry.Level);
        Assert.Equal("CacheWarning", entry.Id.Name);
        Assert.Equal(summary.Cache!.Warnings.Single(), entry.Message);
        Assert.DoesNotContain(logger.Ids, id => id == 104);
    }

    [LinuxFact]
    public async Task A_cache_that_cannot_be_saved_is_logged_with_the_stores_exception()
    {
        var expected = await WriteTreeAsync();
        Tree.Write("not-a-folder", [1]);
        var logger = new Hosting.CollectingLogger();
        var path = Tree.PathOf("not-a-folder/cache.db");

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(Tree.Root).UseCache(new Dedup.Core.Caching.Sqlite.SqliteHashCache(path)).UseLogger(logger));

        Assert.Equal(expected, Scan.Canonical(groups));
        var entry = Assert.Single(logger.Entries, e => e.Id.Id == 106);
        Assert.IsType<SqliteException>(entry.Exception);
        Assert.Equal(summary.Cache!.Warnings.Single(), entry.Message);
    }

    [LinuxFact]
    public async Task A_required_cache_that_cannot_be_saved_fails_the_scan_with_the_stores_exception()
    {
        await WriteTreeAsync();
        Tree.Write("not-a-folder", [1]);
        var path = Tree.PathOf("not-a-folder/cache.db");

        var error = await Assert.ThrowsAsync<Dedup.Core.Caching.HashCacheException>(
            () => Scan.RunAsync(b => b.AddRoot(Tree.Root).UseCache(new Dedup.Core.Caching.Sqlite.SqliteHashCache(path), required: true)));

        Assert.Equal($"cache '{path}' not saved: SQLite Error 14: 'unable to open database file'.", error.Message);
        Assert.IsType<SqliteException>(error.InnerException);
    }

    [LinuxFact]
    public async Task A_required_cache_that_is_not_a_database_fails_the_scan_and_is_left_untouched()
    {
        await WriteTreeAsync();
        var garbage = TempTree.RandomBytes(10_000, 7);
        File.WriteAllBytes(_fixture.CachePath, garbage);

        var error = await Assert.ThrowsAsync<Dedup.Core.Caching.HashCacheException>(
            () => _fixture.ScanAsync(b => b.UseCache(new Dedup.Core.Caching.Sqlite.SqliteHashCache(_fixture.CachePath), required: true)));

        Assert.Contains(_fixture.CachePath, error.Message, StringComparison.Ordinal);
        Assert.Equal(garbage, File.ReadAllBytes(_fixture.CachePath));
    }

    [LinuxFact]
    public async Task A_required_cache_that_works_is_used_as_any_other()
    {
        var expected = await WriteTreeAsync();
        Action<DuplicateFinderBuilder> required = b => b.UseCache(new Dedup.Core.Caching.Sqlite.SqliteHashCache(_fixture.CachePath), required: true);

        var (first, _) = await _fixture.ScanAsync(required);
        var (again, summary) = await _fixture.ScanAsync(required);

        Assert.Equal(expected, Scan.Canonical(first));
        Assert.Equal(expected, Scan.Canonical(again));
        Assert.Equal(5, summary.Cache!.Hits);
        Assert.Empty(summary.Cache.Warnings);
    }

    [LinuxFact]
    public async Task A_damaged_cache_never_makes_a_result_wrong_and_is_rebuilt()
    {
        var expected = await WriteTreeAsync();
        await _fixture.ScanAsync();

        // Every byte after the header flipped: pages, rows, ids and checksums all damaged.
        var bytes = File.ReadAllBytes(_fixture.CachePath);
        for (var i = 100; i < bytes.Length; i++)
        {
            bytes[i] ^= 0x5A;
        }

        File.WriteAllBytes(_fixture.CachePath, bytes);
        var (groups, summary) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(groups));
        Assert.Empty(summary.Errors);
        Assert.Contains(summary.Cache!.Warnings, w => w.Contains("damaged", StringComparison.Ordinal));

        // Rebuilt: the next scan finds every file in it.
        var (again, next) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(again));
        Assert.Empty(next.Cache!.Warnings);
        Assert.Equal(5, next.Cache.Hits);
    }

    [LinuxFact]
    public async Task A_chunk_changed_on_disk_fails_its_checksum_is_one_warning_and_is_rewritten()
    {
        var expected = await WriteTreeAsync();
        await _fixture.ScanAsync();

        // Put c in a's class without fixing the checksum: a cache that believed it would report a, b and c equal.
        // The chunk blob (docs/cache.md): a 32-bit count, then entries of ten 64-bit fields (size the third, class the
        // eighth) and a 32-byte digest when the tenth is not 0, then the checksum.
        var blob = (byte[])CacheFixture.Scalar(_fixture.CachePath, "SELECT data FROM chunks")!;
        var large = new List<int>();
        for (var at = 4; at < blob.Length - 8; at += 80 + (BitConverter.ToInt64(blob, at + 72) != 0 ? 32 : 0))
        {
            if (BitConverter.ToInt64(blob, at + 16) == 100_000)
            {
                large.Add(at);
            }
        }

        Assert.Equal(3, large.Count);
        var classes = large.Select(at => BitConverter.ToInt64(blob, at + 56)).ToList();
        var shared = classes.GroupBy(c => c).Single(g => g.Count() == 2).Key;
        var alone = large[classes.FindIndex(c => c != shared)];
        BitConverter.GetBytes(shared).CopyTo(blob, alone + 56);
        _fixture.ReplaceOnlyChunk(blob);

        var (groups, summary) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(groups));
        Assert.Equal(5, summary.Cache!.Misses); // the whole chunk is skipped
        var warning = Assert.Single(summary.Cache.Warnings);
        Assert.Contains("damaged chunk", warning, StringComparison.Ordinal);

        // The scan wrote its entries over the damaged chunk: the next one reads nothing and warns of nothing.
        (groups, summary) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(groups));
        Assert.Empty(summary.Cache!.Warnings);
        Assert.Equal(5, summary.Cache.Hits);
        Assert.Equal(0, summary.BytesRead);
    }

    [LinuxFact]
    public async Task A_damaged_chunk_whose_files_are_gone_is_dropped_not_warned_of_on_every_scan()
    {
        await WriteTreeAsync();
        await _fixture.ScanAsync();
        Assert.Equal(5, _fixture.CountEntries());

        // Damage the one chunk (a byte of an entry, the checksum left as it was), then delete every file it describes:
        // no later save writes into its range, so only a load that drops it gets rid of it.
        var blob = (byte[])CacheFixture.Scalar(_fixture.CachePath, "SELECT data FROM chunks")!;
        blob[4 + 16] ^= 0x01;
        _fixture.ReplaceOnlyChunk(blob);

        foreach (var name in new[] { "a", "b", "c", "d", "e" })
        {
            File.Delete(Tree.PathOf(name));
        }

        Tree.Write("f", TempTree.RandomBytes(1_000, 9));
        await CacheFixture.LetSettleAsync();

        var (_, summary) = await _fixture.ScanAsync();
        Assert.Contains("damaged chunk", Assert.Single(summary.Cache!.Warnings), StringComparison.Ordinal);

        // docs/cache.md: "its files are read again and the scan's save rewrites it": one warning, not one per scan,
        // and the entries of files not seen again do not stay in the file.
        (_, summary) = await _fixture.ScanAsync();
        Assert.Empty(summary.Cache!.Warnings);
        Assert.Equal(0, _fixture.CountEntries());
    }

    [LinuxFact]
    public async Task A_cache_of_the_older_schema_is_emptied_and_used_without_a_warning()
    {
        var expected = await WriteTreeAsync();

        // Schema 2 (one blob per file), with a row in it; schema 1 had the same table name, a column per field.
        CacheFixture.Execute(_fixture.CachePath, """
            PRAGMA application_id = 1145328976; PRAGMA user_version = 2;
            CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE files(dev INTEGER NOT NULL, ino INTEGER NOT NULL, entry BLOB NOT NULL, PRIMARY KEY (dev, ino)) WITHOUT ROWID;
            INSERT INTO meta VALUES ('next_id', '40');
            INSERT INTO files VALUES (1, 2, x'0102');
            """);

        var (groups, summary) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(groups));
        Assert.Empty(summary.Cache!.Warnings);
        Assert.Equal(0, summary.Cache.Hits);
        Assert.Equal(3L, CacheFixture.Scalar(_fixture.CachePath, "PRAGMA user_version"));
        Assert.Equal(0L, CacheFixture.Scalar(_fixture.CachePath, "SELECT count(*) FROM sqlite_master WHERE name = 'files'"));
        Assert.Equal(5, _fixture.CountEntries()); // the old row is gone, the scan's five are in the new table
        var nextId = long.Parse((string)CacheFixture.Scalar(_fixture.CachePath, "SELECT value FROM meta WHERE key = 'next_id'")!, System.Globalization.CultureInfo.InvariantCulture);
        Assert.True(nextId > 40, $"next_id {nextId}"); // meta kept: ids are never reused

        (groups, summary) = await _fixture.ScanAsync();
        Assert.Equal(expected, Scan.Canonical(groups));
        Assert.Equal(5, summary.Cache!.Hits);
        Assert.Equal(0, summary.BytesRead);
    }

    [LinuxFact]
    public async Task A_newer_schema_is_a_warning_and_the_file_is_left_untouched()
    {
        await WriteTreeAsync();
        await _fixture.ScanAsync();
        CacheFixture.Execute(_fixture.CachePath, "PRAGMA user_version = 99");
        var before = SHA256.HashData(File.ReadAllBytes(_fixture.CachePath));

        File.Delete(Tree.PathOf("e")); // something to prune, had the file been used
        var (groups, summary) = await _fixture.ScanAsync();
        Assert.Equal(await _fixture.BaselineAsync(), Scan.Canonical(groups));
        Assert.Contains(summary.Cache!.Warnings, w => w.Contains("newer", StringComparison.Ordinal));
        Assert.Equal(0, summary.Cache.Hits);
        Assert.Equal(before, SHA256.HashData(File.ReadAllBytes(_fixture.CachePath)));
    }

    [LinuxFact]
    public async Task A_locked_cache_is_a_warning_and_the_scan_goes_on()
    {
        var expected = await WriteTreeAsync();
        await _fixture.ScanAsync();

        using var holder = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = _fixture.CachePath, Pooling = false }.ToString());
        holder.Open();
        using (var command = holder.CreateCommand())
        {
            command.CommandText = "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE meta SET value = value WHERE key = 'format';";
            command.ExecuteNonQuery();
        }

        var (groups, summary) = await _fixture.ScanAsync(busyTimeout: TimeSpan.FromMilliseconds(200));
        Assert.Equal(expected, Scan.Canonical(groups));
        Assert.Empty(summary.Errors);
        var warning = Assert.Single(summary.Cache!.Warnings);
        Assert.Contains("locked", warning, StringComparison.OrdinalIgnoreCase);
    }

    [LinuxFact]
    public async Task Two_scans_sharing_one_cache_at_once_are_both_exact_and_leave_it_usable()
    {
        var expected = await WriteTreeAsync();
        using var other = new TempTree();
        var content = TempTree.RandomBytes(70_000, 5);
        File.WriteAllBytes(Path.Combine(other.Root, "x"), content);
        File.WriteAllBytes(Path.Combine(other.Root, "y"), content);
        File.WriteAllBytes(Path.Combine(other.Root, "z"), TempTree.RandomBytes(70_000, 6));
        await CacheFixture.LetSettleAsync();
        var otherExpected = await _fixture.BaselineAsync(root: other.Root);

        for (var round = 0; round < 3; round++)
        {
            var scans = new[]
            {
                _fixture.ScanAsync(), _fixture.ScanAsync(root: other.Root), _fixture.ScanAsync(), _fixture.ScanAsync(root: other.Root),
            };
            var results = await Task.WhenAll(scans);
            for (var i = 0; i < results.Length; i++)
            {
                Assert.Equal(i % 2 == 0 ? expected : otherExpected, Scan.Canonical(results[i].Groups));
                Assert.Empty(results[i].Summary.Cache!.Warnings);
            }
        }

        // Neither tree's entries were pruned by the other's scans.
        var (_, summary) = await _fixture.ScanAsync();
        Assert.Equal(5, summary.Cache!.Hits);
        var (_, otherSummary) = await _fixture.ScanAsync(root: other.Root);
        Assert.Equal(3, otherSummary.Cache!.Hits);
        Assert.Equal(8, _fixture.CountEntries());
    }
}
