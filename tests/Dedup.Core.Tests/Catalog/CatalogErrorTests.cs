using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Npgsql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>Bad connection strings and lost connections become a <see cref="CatalogException"/> that names the server, never the password.</summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogErrorTests(PostgresFixture postgres)
{
    [Theory]
    [InlineData("this is not a connection string")]
    [InlineData("Host=db;Port=not-a-number")]
    [InlineData("Hots=db;Database=dedup")]
    [InlineData("Database=dedup;Password=secret-value")]
    public void An_unparseable_connection_string_is_refused_at_construction(string connectionString)
    {
        var error = Assert.Throws<CatalogException>(() => new PostgresCatalog(connectionString));

        Assert.Equal(CatalogErrorKind.InvalidConnectionString, error.Kind);
        Assert.StartsWith("The dedup catalog's connection string is not valid", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret-value", error.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Host=127.0.0.1;Port=1;Database=fleet;Username=dedup;Password=secret-value;Timeout=5", "127.0.0.1")]
    [InlineData("Host=no-such-host.invalid;Database=fleet;Password=secret-value;Timeout=5", "no-such-host.invalid")]
    public async Task An_unreachable_server_is_a_clear_error(string connectionString, string host)
    {
        await using var catalog = new PostgresCatalog(connectionString);

        var error = await Assert.ThrowsAsync<CatalogException>(() => catalog.GetSharedSizesAsync("m"));

        Assert.Equal(CatalogErrorKind.Unreachable, error.Kind);
        Assert.Equal(host, error.Host);
        Assert.Contains($"Cannot connect to the dedup catalog (host '{host}'", error.Message, StringComparison.Ordinal);
        Assert.Contains("database 'fleet'", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret-value", error.ToString(), StringComparison.Ordinal);
    }

    [PostgresFact]
    public async Task A_wrong_password_or_database_is_refused_by_name()
    {
        string database = new NpgsqlConnectionStringBuilder(postgres.NewDatabase("refused")).Database!;
        await using var wrongPassword = new PostgresCatalog(postgres.Cluster.ConnectionString(database, password: "not-the-password"));
        await using var noDatabase = new PostgresCatalog(postgres.Cluster.ConnectionString("no_such_db"));

        var password = await Assert.ThrowsAsync<CatalogException>(() => wrongPassword.MigrateAsync());
        var missing = await Assert.ThrowsAsync<CatalogException>(() => noDatabase.MigrateAsync());

        Assert.Equal(CatalogErrorKind.Rejected, password.Kind);
        Assert.Contains($"database '{database}'", password.Message, StringComparison.Ordinal);
        Assert.Contains("password authentication failed", password.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("not-the-password", password.ToString(), StringComparison.Ordinal);
        Assert.Equal(CatalogErrorKind.Rejected, missing.Kind);
        Assert.Contains("\"no_such_db\" does not exist", missing.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(PostgresCluster.Password, missing.ToString(), StringComparison.Ordinal);
    }

    [PostgresFact]
    public async Task A_connection_dropped_mid_scan_is_a_clear_error_and_the_previous_scan_stays()
    {
        string database = postgres.NewDatabase("dropped");
        var builder = new NpgsqlConnectionStringBuilder(database) { ApplicationName = "dedup-dropped" };
        await using var catalog = new PostgresCatalog(builder.ConnectionString);
        await catalog.ReplaceMachineFilesAsync("m", [File("/previous", 10, 1)]);

        var error = await Assert.ThrowsAsync<CatalogException>(() => catalog.ReplaceMachineFilesAsync("m", FilesThatDropTheConnection(database)));

        Assert.Equal(CatalogErrorKind.ConnectionLost, error.Kind);
        Assert.Contains("The connection to the dedup catalog", error.Message, StringComparison.Ordinal);
        Assert.Contains($"database '{builder.Database}'", error.Message, StringComparison.Ordinal);
        Assert.Contains("was lost while replacing a machine's files", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(PostgresCluster.Password, error.ToString(), StringComparison.Ordinal);

        // The transaction died with the connection: the machine still has its previous scan, and the catalog works.
        var machine = Assert.Single(await catalog.GetMachinesAsync());
        Assert.Equal(1, machine.Files);
    }

    [PostgresFact]
    public async Task A_server_stopped_between_operations_is_a_lost_or_unreachable_catalog()
    {
        using var cluster = PostgresCluster.Start();
        await using var catalog = new PostgresCatalog(cluster.ConnectionString());
        await catalog.ReplaceMachineFilesAsync("m", [File("/f", 10, 1)]);

        cluster.Stop();

        var error = await Assert.ThrowsAsync<CatalogException>(() => catalog.GetSharedSizesAsync("m"));
        Assert.Contains(error.Kind, new[] { CatalogErrorKind.ConnectionLost, CatalogErrorKind.Unreachable });
        Assert.Equal(cluster.Folder, error.Host);
    }

    /// <summary>Yields files; after the first thousand, terminates the catalog's backend from another connection.</summary>
    private static IEnumerable<CatalogFile> FilesThatDropTheConnection(string adminConnectionString)
    {
        for (int i = 0; i < 300_000; i++)
        {
            if (i == 1000)
            {
                using var admin = new NpgsqlConnection(adminConnectionString);
                admin.Open();
                using var terminate = new NpgsqlCommand(
                    "SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity WHERE application_name = 'dedup-dropped'", admin);
                Assert.Equal(1L, terminate.ExecuteScalar());
            }

            yield return File($"/new/{i}", 10, (ulong)i + 2);
        }
    }

    [Fact]
    public async Task The_callers_own_failure_on_a_live_connection_is_not_called_a_lost_connection()
    {
        await using var catalog = new PostgresCatalog(postgres.NewDatabase("callers-failure"));

        // The caller's sequence fails midway (as a modified collection does) while the connection is fine.
        static IEnumerable<CatalogFile> Failing()
        {
            yield return File("/a", 10, 1);
            throw new InvalidOperationException("Collection was modified; enumeration operation may not execute.");
        }

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => catalog.ReplaceMachineFilesAsync("m", Failing()));

        Assert.StartsWith("Collection was modified", error.Message, StringComparison.Ordinal);
        Assert.Empty(await catalog.GetMachinesAsync()); // the transaction was not committed
    }
}
