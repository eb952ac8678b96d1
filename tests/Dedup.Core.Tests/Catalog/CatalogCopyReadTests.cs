using System.Text;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Npgsql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// The group reads' binary COPY on a real PostgreSQL server: <see cref="BinaryCopyReader"/> field by field, rows that
/// span and outgrow its buffer, a COPY left before its end, and the same groups as the read by contents gives.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogCopyReadTests(PostgresFixture postgres)
{
    [PostgresFact]
    public async Task The_reader_gives_each_field_as_the_server_sent_it_and_refuses_a_wrong_type_or_a_null()
    {
        await using var connection = await OpenAsync("copyfields");
        await using var copy = await BinaryCopyReader.BeginAsync(
            connection,
            "COPY (SELECT -5::bigint, 7::int, '\\x00ff10'::bytea, NULL::bytea, ''::bytea UNION ALL SELECT 9223372036854775807, -1, '\\x01', '\\x02', '\\x') TO STDOUT (FORMAT BINARY)",
            CancellationToken.None);

        Assert.True(await copy.ReadAsync(CancellationToken.None));
        Assert.Equal(5, copy.FieldCount);
        Assert.Equal(-5L, copy.GetInt64(0));
        Assert.Equal(7, copy.GetInt32(1));
        Assert.Equal(new byte[] { 0x00, 0xff, 0x10 }, copy.GetBytes(2).ToArray());
        Assert.True(copy.IsNull(3));
        Assert.False(copy.IsNull(4));
        Assert.Empty(copy.GetBytes(4).ToArray());
        Assert.Throws<InvalidDataException>(() => copy.GetBytes(3).Length);
        Assert.Throws<InvalidDataException>(() => copy.GetInt64(1));
        Assert.Throws<InvalidDataException>(() => copy.GetInt32(0));
        Assert.Throws<ArgumentOutOfRangeException>(() => copy.IsNull(5));
        Assert.Throws<ArgumentOutOfRangeException>(() => copy.IsNull(-1));

        Assert.True(await copy.ReadAsync(CancellationToken.None));
        Assert.Equal(long.MaxValue, copy.GetInt64(0));
        Assert.Equal(-1, copy.GetInt32(1));
        Assert.Equal(new byte[] { 2 }, copy.GetBytes(3).ToArray());
        Assert.False(await copy.ReadAsync(CancellationToken.None));
        Assert.False(await copy.ReadAsync(CancellationToken.None));
    }

    [PostgresFact]
    public async Task Rows_of_no_field_and_of_many_fields_are_read_and_a_refusal_names_the_field()
    {
        await using var connection = await OpenAsync("copyshapes");
        await using (var empty = await BinaryCopyReader.BeginAsync(connection, "COPY (SELECT FROM generate_series(1, 3)) TO STDOUT (FORMAT BINARY)", CancellationToken.None))
        {
            for (var i = 0; i < 3; i++)
            {
                Assert.True(await empty.ReadAsync(CancellationToken.None));
                Assert.Equal(0, empty.FieldCount);
            }

            Assert.False(await empty.ReadAsync(CancellationToken.None));
        }

        await using var wide = await BinaryCopyReader.BeginAsync(
            connection,
            "COPY (SELECT i::bigint, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, i + 8, i + 9, NULL::bytea, i + 11 FROM generate_series(1::bigint, 2) i) TO STDOUT (FORMAT BINARY)",
            CancellationToken.None);
        Assert.True(await wide.ReadAsync(CancellationToken.None));
        Assert.Equal(12, wide.FieldCount);
        Assert.Equal(Enumerable.Range(1, 10).Select(i => (long)i), Enumerable.Range(0, 10).Select(wide.GetInt64));
        Assert.Equal(12L, wide.GetInt64(11));
        Assert.Equal("Field 10 of the server's COPY output is NULL.", Assert.Throws<InvalidDataException>(() => wide.GetBytes(10).Length).Message);
        Assert.Equal("Field 0 of the server's COPY output is 8 bytes, not 4.", Assert.Throws<InvalidDataException>(() => wide.GetInt32(0)).Message);
        Assert.StartsWith("The row has 12 fields.", Assert.Throws<ArgumentOutOfRangeException>(() => wide.IsNull(12)).Message);
        Assert.True(await wide.ReadAsync(CancellationToken.None));
        Assert.Equal(2L, wide.GetInt64(0));
        Assert.False(await wide.ReadAsync(CancellationToken.None));
    }

    [PostgresFact]
    public async Task Rows_across_many_buffers_and_one_larger_than_the_buffer_come_whole()
    {
        await using var connection = await OpenAsync("copylarge");
        // 3,000 rows of 100 bytes (several 64 KiB buffers), and row 1,500 holds 200,000 bytes.
        await using (var copy = await BinaryCopyReader.BeginAsync(
            connection,
            "COPY (SELECT i::bigint, CASE WHEN i = 1500 THEN decode(repeat('ab', 200000), 'hex') ELSE decode(repeat(lpad(to_hex(i % 256), 2, '0'), 100), 'hex') END FROM generate_series(1, 3000) i ORDER BY i) TO STDOUT (FORMAT BINARY)",
            CancellationToken.None))
        {
            for (var i = 1; i <= 3000; i++)
            {
                Assert.True(await copy.ReadAsync(CancellationToken.None));
                Assert.Equal(i, copy.GetInt64(0));
                var bytes = copy.GetBytes(1);
                Assert.Equal(i == 1500 ? 200_000 : 100, bytes.Length);
                Assert.True(bytes.IndexOfAnyExcept(i == 1500 ? (byte)0xab : (byte)(i % 256)) < 0, $"row {i}");
            }

            Assert.False(await copy.ReadAsync(CancellationToken.None));
        }

        // The COPY ended cleanly: the connection goes on.
        await using var command = new NpgsqlCommand("SELECT 41 + 1", connection);
        Assert.Equal(42, (int)(await command.ExecuteScalarAsync())!);
    }

    [PostgresFact]
    public async Task A_copy_left_before_its_end_is_cancelled_and_the_connection_goes_on()
    {
        await using var connection = await OpenAsync("copyleft");
        await using (var copy = await BinaryCopyReader.BeginAsync(connection, "COPY (SELECT i::bigint FROM generate_series(1, 200000) i) TO STDOUT (FORMAT BINARY)", CancellationToken.None))
        {
            Assert.True(await copy.ReadAsync(CancellationToken.None));
            Assert.Equal(1, copy.GetInt64(0));
        }

        await using var command = new NpgsqlCommand("SELECT 41 + 1", connection);
        Assert.Equal(42, (int)(await command.ExecuteScalarAsync())!);
    }

    [PostgresFact]
    public async Task A_read_by_copy_gives_the_groups_the_read_by_contents_gives_with_long_paths_byte_for_byte()
    {
        await using var catalog = postgres.NewCatalog("copygroups");
        var longName = "/b/" + new string('n', 70_000);
        CatalogFile[] mine = [File("/a/1", 10, 1), File("/a/2", 20, 2), File("/a/3", 20, 3), File("/a/4", 30, 4)];
        CatalogFile[] theirs = [File("/b/1", 10, 11), File(longName, 20, 12), File("/b/\u00e9t\u00e9", 30, 13), File("/b/4", 40, 14)];
        await catalog.ReplaceFilesAndRecordDigestsAsync("a", mine, Digests(Digest(mine[0], "X"), Digest(mine[1], "Y"), Digest(mine[2], "Y"), Digest(mine[3], "Z")));
        await catalog.ReplaceFilesAndRecordDigestsAsync("b", theirs, Digests(Digest(theirs[0], "X"), Digest(theirs[1], "Y"), Digest(theirs[2], "Z"), Digest(theirs[3], "W")));

        var byCopy = await catalog.FindGroupsAcrossMachinesAsync("a");
        var byContents = await catalog.FindGroupsAcrossMachinesAsync("a", [Digest(mine[0], "X"), Digest(mine[1], "Y"), Digest(mine[3], "Z")], _ => { });

        string[] expected = ["b:/b/\u00e9t\u00e9 a:", $"b:{longName} a: a:", "b:/b/1 a:"];
        Assert.Equal(expected, byCopy.Select(Describe));
        Assert.Equal(expected, byContents.Select(Describe));
        Assert.Equal(Encoding.UTF8.GetBytes(longName), byCopy[1].Files.Single(file => file.Machine == "b").Path.ToArray());
        Assert.Equal([Sha("Z"), Sha("Y"), Sha("X")], byCopy.Select(group => group.Sha256.ToArray()));
        Assert.Equal(mine[3].Stamp, byCopy[0].Files.Single(file => file.Machine == "a").Stamp);
        Assert.Equal(theirs[1].Stamp, byCopy[1].Files.Single(file => file.Machine == "b").Stamp);
    }

    [PostgresFact]
    public async Task The_stored_stamps_come_whole_and_only_the_machines_trusted_ones()
    {
        await using var catalog = postgres.NewCatalog("copystamps");
        var high = new CatalogFile(File("/a/high", 10, 1).Path, new Enumeration.FileStamp(new Enumeration.FileIdentity(ulong.MaxValue - 1, (1UL << 63) + 5), 10, -7, 3));
        CatalogFile[] mine = [high, File("/a/zero", 20, 2, ctime: 0), File("/a/plain", 30, 3)];
        CatalogFile[] theirs = [File("/b/x", 40, 4)];
        await catalog.ReplaceFilesAndRecordDigestsAsync("a", mine, Digests(Digest(mine[0], "X"), Digest(mine[1], "Y"), Digest(mine[2], "Z")));
        await catalog.ReplaceFilesAndRecordDigestsAsync("b", theirs, Digests(Digest(theirs[0], "W")));

        // A ctime of 0 is never trusted; another machine's stamps are not this one's.
        Assert.Equal(
            new[] { high.Stamp, mine[2].Stamp }.OrderBy(stamp => stamp.Length),
            (await catalog.GetDigestedFilesAsync("a")).OrderBy(stamp => stamp.Length));
        Assert.Empty(await catalog.GetDigestedFilesAsync("nobody"));
    }

    /// <summary>A group as "machine:path" per file by machine name descending (this machine's files have no path).</summary>
    private static string Describe(CatalogGroup group) =>
        string.Join(' ', group.Files.OrderByDescending(file => file.Machine, StringComparer.Ordinal).Select(file => $"{file.Machine}:{PathOf(file)}"));

    private async Task<NpgsqlConnection> OpenAsync(string prefix)
    {
        var connection = new NpgsqlConnection(postgres.NewDatabase(prefix));
        await connection.OpenAsync();
        return connection;
    }
}
