using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>A scan's rows reach the catalog with each path's exact bytes, at any depth (a folder's bytes are made once and shared by its files).</summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogPathTests(PostgresFixture postgres)
{
    [LinuxFact] // a name that is not UTF-8
    public async Task Every_row_of_a_scan_has_its_paths_exact_bytes()
    {
        string database = postgres.NewDatabase("paths");
        using var tree = new TempTree();
        var relative = new List<byte[]> { "top.bin"u8.ToArray(), "a/one.bin"u8.ToArray(), "a/b/c/deep.bin"u8.ToArray(), "a/b/c/deeper.bin"u8.ToArray(), "z/one.bin"u8.ToArray() };
        foreach (var path in relative)
        {
            tree.Write(System.Text.Encoding.UTF8.GetString(path), TempTree.RandomBytes(100 + path.Length, path.Length));
        }

        byte[] odd = [.. "a/b/x"u8, 0xFF];
        ExactNames.CreateFolder([.. System.Text.Encoding.UTF8.GetBytes(tree.Root + "/"), .. odd]);
        foreach (var name in new[] { "/f.bin"u8.ToArray(), "/g.bin"u8.ToArray() })
        {
            ExactNames.WriteFile([.. System.Text.Encoding.UTF8.GetBytes(tree.Root + "/"), .. odd, .. name], [1, 2, 3, (byte)name[1]]);
            relative.Add([.. odd, .. name]);
        }

        await using (var catalog = new PostgresCatalog(database))
        {
            var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).UseCatalog(catalog, "m").Build().FindAsync();
            await foreach (var _ in scan)
            {
            }

            Assert.Null(scan.Summary.Catalog?.Error);
        }

        var stored = new List<string>();
        await using (var connection = new Npgsql.NpgsqlConnection(database))
        {
            await connection.OpenAsync();
            await using var command = new Npgsql.NpgsqlCommand("SELECT path FROM dedup.files", connection);
            await using var reader = await command.ExecuteReaderAsync();
            while (await reader.ReadAsync())
            {
                stored.Add(Convert.ToHexString(reader.GetFieldValue<byte[]>(0)));
            }
        }

        var expected = relative.Select(path => Convert.ToHexString([.. System.Text.Encoding.UTF8.GetBytes(tree.Root + "/"), .. path]));
        Assert.Equal(expected.Order(), stored.Order());
    }
}
