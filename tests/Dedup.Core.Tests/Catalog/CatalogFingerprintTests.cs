using System.Collections;
using System.Text;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A machine's rows fingerprint (schema 5) on a real PostgreSQL server: a rescan whose rows have it writes nothing, and
/// sends nothing when its files are a collection; any change, a missing or a tampered fingerprint writes by difference.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogFingerprintTests(PostgresFixture postgres)
{
    private static readonly CatalogFile[] Tree = [File("/a/x", 10, 1), File("/a/y", 20, 2), File("/a/z", 20, 3)];

    [Fact]
    public void A_fingerprint_ignores_the_rows_order_and_changes_with_every_field_of_a_row()
    {
        var fingerprint = CatalogFingerprint.Of(Tree).ToArray();
        Assert.Equal(fingerprint, CatalogFingerprint.Of(Enumerable.Reverse(Tree)).ToArray());
        Assert.Equal(CatalogFingerprint.Length, fingerprint.Length);

        var x = Tree[0];
        CatalogFile[] changed =
        [
            File("/a/w", 10, 1),
            File("/a/x", 11, 1),
            File("/a/x", 10, 9),
            File("/a/x", 10, 1, mtime: 5),
            File("/a/x", 10, 1, ctime: 5),
            new CatalogFile(x.Path, x.Stamp with { Identity = x.Stamp.Identity with { Device = 7 } }),
        ];
        var seen = new HashSet<string> { Convert.ToHexString(fingerprint) };
        foreach (var file in changed)
        {
            Assert.True(seen.Add(Convert.ToHexString(CatalogFingerprint.Of([file, Tree[1], Tree[2]]).ToArray())), PathOf(file));
        }
    }

    [Fact]
    public void Each_of_the_four_lanes_holds_its_own_quarter_of_the_rows_hashes_and_a_null_row_is_refused()
    {
        var fingerprint = CatalogFingerprint.Of(Tree).ToArray();
        var lanes = Enumerable.Range(0, 4).Select(i => Convert.ToHexString(fingerprint, i * 8, 8)).ToArray();
        Assert.Equal(4, lanes.Distinct().Count());
        Assert.DoesNotContain(new string('0', 16), lanes);

        // A path longer than the row buffer (512 bytes at first) is hashed whole: its last byte counts.
        var longPath = "/a/" + new string('p', 2000);
        Assert.NotEqual(
            CatalogFingerprint.Of([File(longPath + "1", 10, 1)]).ToArray(),
            CatalogFingerprint.Of([File(longPath + "2", 10, 1)]).ToArray());
        Assert.Throws<ArgumentNullException>(() => CatalogFingerprint.Of([Tree[0], null!]));
    }

    [Fact]
    public void Rows_match_only_a_stored_fingerprint_of_the_same_count_and_bytes()
    {
        var fingerprint = CatalogFingerprint.Of(Tree);
        var stored = fingerprint.ToArray();
        Assert.Equal(3, fingerprint.Rows);
        Assert.True(fingerprint.Matches(stored, 3));
        Assert.False(fingerprint.Matches(stored, 2));
        Assert.False(fingerprint.Matches(null, 3));
        Assert.False(fingerprint.Matches(stored[..31], 3));
        stored[31] ^= 1;
        Assert.False(fingerprint.Matches(stored, 3));
        Assert.False(new CatalogFingerprint().Matches(new byte[CatalogFingerprint.Length], 1));
        Assert.True(new CatalogFingerprint().Matches(new byte[CatalogFingerprint.Length], 0));
    }

    [PostgresFact]
    public async Task An_unchanged_rescan_given_as_a_collection_reads_it_once_and_sends_no_row()
    {
        var database = postgres.NewDatabase("fpsame");
        await using var catalog = new PostgresCatalog(database);
        await catalog.ReplaceFilesAndRecordDigestsAsync("a", new Files(Tree), Digests(Digest(Tree[1], "Y"), Digest(Tree[2], "Y")));
        var before = await RowsAsync(database);

        var again = new Files(Enumerable.Reverse(Tree));
        Assert.Equal(3, await catalog.ReplaceFilesAndRecordDigestsAsync("a", again, Digests()));

        // One reading, to fingerprint them: none was copied.
        Assert.Equal(1, again.Readings);
        Assert.Equal(before, await RowsAsync(database));
        Assert.Equal(2L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.digests"));
        Assert.Equal(["a:/a/y", "a:/a/z"], Names(Assert.Single(await catalog.FindGroupsAsync("a"))));
    }

    [PostgresFact]
    public async Task A_changed_file_makes_the_rescan_write_the_difference_and_drop_its_digest()
    {
        var database = postgres.NewDatabase("fpchanged");
        await using var catalog = new PostgresCatalog(database);
        await catalog.ReplaceFilesAndRecordDigestsAsync("a", new Files(Tree), Digests(Digest(Tree[1], "Y"), Digest(Tree[2], "Y")));

        // The same count of rows; /a/z edited (a new mtime), /a/x renamed.
        var edited = new Files([File("/a/renamed", 10, 1), Tree[1], File("/a/z", 20, 3, mtime: 42)]);
        Assert.Equal(3, await catalog.ReplaceFilesAndRecordDigestsAsync("a", edited, Digests()));

        Assert.Equal(2, edited.Readings);
        Assert.Equal(
            ["/a/renamed 10 1700000000000000000", "/a/y 20 1700000000000000000", "/a/z 20 42"],
            await RowsAsync(database));
        // The edited file's digest went with its stamp; the renamed file kept none (it had none).
        Assert.Equal(1L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.digests"));
        Assert.Empty(await catalog.FindGroupsAsync("a"));

        // Its fingerprint is the new rows': the same rescan again sends nothing.
        var same = new Files([File("/a/renamed", 10, 1), Tree[1], File("/a/z", 20, 3, mtime: 42)]);
        await catalog.ReplaceFilesAndRecordDigestsAsync("a", same, Digests());
        Assert.Equal(1, same.Readings);
    }

    [PostgresFact]
    public async Task Files_that_are_not_a_collection_are_read_once_and_an_unchanged_set_keeps_rows_and_digests()
    {
        var database = postgres.NewDatabase("fpstream");
        await using var catalog = new PostgresCatalog(database);
        await catalog.ReplaceFilesAndRecordDigestsAsync("a", Stream(Tree), Digests(Digest(Tree[1], "Y"), Digest(Tree[2], "Y")));
        var before = await RowsAsync(database);

        var readings = 0;
        Assert.Equal(3, await catalog.ReplaceFilesAndRecordDigestsAsync("a", Stream(Tree, () => readings++), Digests()));
        Assert.Equal(1, readings);
        Assert.Equal(before, await RowsAsync(database));
        Assert.Equal(2L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.digests"));

        // A row gone: written by difference (the fingerprint was computed while copying, and differed).
        Assert.Equal(2, await catalog.ReplaceFilesAndRecordDigestsAsync("a", Stream(Tree[..2]), Digests()));
        Assert.Equal(["/a/x 10 1700000000000000000", "/a/y 20 1700000000000000000"], await RowsAsync(database));
        Assert.Equal(1L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.digests"));
    }

    [PostgresFact]
    public async Task A_tampered_fingerprint_or_a_row_deleted_by_hand_is_mended_by_the_next_rescan()
    {
        var database = postgres.NewDatabase("fptamper");
        await using var catalog = new PostgresCatalog(database);
        await catalog.ReplaceFilesAsync("a", new Files(Tree));
        var before = await RowsAsync(database);

        // A hand edit of the rows must clear or change the fingerprint (the rows are trusted to be the library's): a
        // fingerprint that differs makes the rescan write by difference, which puts the deleted row back.
        await ExecuteSqlAsync(database, "DELETE FROM dedup.files WHERE path = convert_to('/a/x', 'UTF8')");
        await ExecuteSqlAsync(database, "UPDATE dedup.machines SET rows_fingerprint = decode(repeat('00', 32), 'hex')");
        var again = new Files(Tree);
        await catalog.ReplaceFilesAsync("a", again);
        Assert.Equal(2, again.Readings);
        Assert.Equal(before, await RowsAsync(database));

        // No fingerprint at all (rows an older library wrote): compared with nothing, copied once, then stored.
        await ExecuteSqlAsync(database, "UPDATE dedup.machines SET rows_fingerprint = NULL");
        var unknown = new Files(Tree);
        await catalog.ReplaceFilesAsync("a", unknown);
        Assert.Equal(1, unknown.Readings);
        Assert.Equal(1L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.machines WHERE octet_length(rows_fingerprint) = 32"));
        var known = new Files(Tree);
        await catalog.ReplaceFilesAsync("a", known);
        Assert.Equal(1, known.Readings);
        Assert.Equal(before, await RowsAsync(database));
    }

    [PostgresFact]
    public async Task A_version_4_catalog_gets_the_column_and_its_machines_rows_stay_as_they_were()
    {
        var database = postgres.NewDatabase("fpschema");
        await using (var catalog = new PostgresCatalog(database))
        {
            await catalog.ReplaceFilesAndRecordDigestsAsync("a", new Files(Tree), Digests(Digest(Tree[1], "Y"), Digest(Tree[2], "Y")));
        }

        await ExecuteSqlAsync(database, "ALTER TABLE dedup.machines DROP COLUMN rows_fingerprint; DELETE FROM dedup.schema_version WHERE version > 4");
        await using (var catalog = new PostgresCatalog(database))
        {
            Assert.Equal(4, await catalog.MigrateAsync());
            Assert.Equal(5, PostgresCatalog.SchemaVersion);
            Assert.Equal(1L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.machines WHERE rows_fingerprint IS NULL"));
            var edited = new Files([Tree[0], Tree[1], File("/a/z", 20, 3, mtime: 42)]);
            await catalog.ReplaceFilesAndRecordDigestsAsync("a", edited, Digests());
            Assert.Equal(1, edited.Readings);
            Assert.Equal("/a/z 20 42", (await RowsAsync(database))[2]);
            Assert.Equal(1L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.digests"));
        }
    }

    /// <summary>A collection of files that counts how often it is read.</summary>
    private sealed class Files(IEnumerable<CatalogFile> files) : IReadOnlyCollection<CatalogFile>
    {
        private readonly CatalogFile[] _files = [.. files];

        public int Readings { get; private set; }

        public int Count => _files.Length;

        public IEnumerator<CatalogFile> GetEnumerator()
        {
            Readings++;
            return ((IEnumerable<CatalogFile>)_files).GetEnumerator();
        }

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
    }

    private static IEnumerable<CatalogFile> Stream(IEnumerable<CatalogFile> files, Action? reading = null)
    {
        reading?.Invoke();
        foreach (var file in files)
        {
            yield return file;
        }
    }

    /// <summary>The stored rows as "path size mtime", by path.</summary>
    private static async Task<List<string>> RowsAsync(string database)
    {
        await using var connection = new Npgsql.NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new Npgsql.NpgsqlCommand("SELECT path, size, mtime_ns FROM dedup.files ORDER BY path", connection);
        await using var reader = await command.ExecuteReaderAsync();
        var rows = new List<string>();
        while (await reader.ReadAsync())
        {
            rows.Add($"{Encoding.UTF8.GetString(reader.GetFieldValue<byte[]>(0))} {reader.GetInt64(1)} {reader.GetInt64(2)}");
        }

        return rows;
    }
}
