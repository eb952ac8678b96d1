using System.Security.Cryptography;
using System.Text;
using Dedup.Core.Enumeration;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;

namespace Dedup.Core.Tests.Catalog;

/// <summary>Builds catalog rows for tests: a file is a path, a size, an inode and a content seed for its digest.</summary>
internal static class CatalogData
{
    public const ulong Device = 0x8_0000_0003;

    public static FileStamp Stamp(long size, ulong inode, long mtime = 1_700_000_000_000_000_000, long ctime = 1_700_000_000_000_000_001) =>
        new(new FileIdentity(Device, inode), size, mtime, ctime);

    public static CatalogFile File(string path, long size, ulong inode, long mtime = 1_700_000_000_000_000_000, long ctime = 1_700_000_000_000_000_001) =>
        new(Encoding.UTF8.GetBytes(path), Stamp(size, inode, mtime, ctime));

    /// <summary>The digest of content named by <paramref name="content"/> (files with equal names have equal content).</summary>
    public static byte[] Sha(string content) => SHA256.HashData(Encoding.UTF8.GetBytes(content));

    public static CatalogDigest Digest(CatalogFile file, string content) => new(file.Stamp, Sha(content));

    public static string PathOf(CatalogMatch match) => Encoding.UTF8.GetString(match.Path.Span);

    public static string PathOf(CatalogFile file) => Encoding.UTF8.GetString(file.Path.Span);

    /// <summary>"machine:path" for each file of a group, in the group's order.</summary>
    public static string[] Names(CatalogGroup group) => group.Files.Select(file => $"{file.Machine}:{PathOf(file)}").ToArray();

    /// <summary>Hashes what the catalog asks for, with the content each path was given.</summary>
    public static async Task<long> HashRequestedAsync(PostgresCatalog catalog, string machine, IReadOnlyDictionary<string, string> contentByPath)
    {
        var files = await catalog.GetFilesToHashAsync(machine);
        return await catalog.RecordDigestsAsync(machine, files.Select(file => Digest(file, contentByPath[PathOf(file)])));
    }

    /// <summary>Digests already made, as the async stream a scan hands the catalog.</summary>
#pragma warning disable CS1998 // nothing to await: the digests are made
    public static async IAsyncEnumerable<CatalogDigest> Digests(params CatalogDigest[] digests)
#pragma warning restore CS1998
    {
        foreach (var digest in digests)
        {
            yield return digest;
        }
    }

    /// <summary>Runs <paramref name="sql"/> on the test database (a hand edit of the catalog).</summary>
    public static async Task ExecuteSqlAsync(string database, string sql)
    {
        await using var connection = new Npgsql.NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new Npgsql.NpgsqlCommand(sql, connection);
        await command.ExecuteNonQueryAsync();
    }

    /// <summary>The <c>bigint</c> that <paramref name="sql"/> returns from the test database.</summary>
    public static async Task<long> ScalarSqlAsync(string database, string sql)
    {
        await using var connection = new Npgsql.NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new Npgsql.NpgsqlCommand(sql, connection);
        return (long)(await command.ExecuteScalarAsync())!;
    }
}
