using Dedup.Core.Paths;
using Dedup.Core.PostgreSql;

namespace Dedup.Cli;

/// <summary><c>dedup find --catalog</c>: opens the PostgreSQL catalog before the scan, so a bad connection string or server is one line, not a scan.</summary>
internal static class CatalogOption
{
    /// <summary>The catalog, reachable and migrated; <see langword="null"/> after writing why not (one line).</summary>
    public static async Task<PostgresCatalog?> OpenAsync(string connectionString, CancellationToken cancellationToken)
    {
        PostgresCatalog? catalog = null;
        try
        {
            catalog = new PostgresCatalog(connectionString);
            await catalog.MigrateAsync(cancellationToken).ConfigureAwait(false);
            return catalog;
        }
        catch (CatalogException error)
        {
            if (catalog is not null)
            {
                await catalog.DisposeAsync().ConfigureAwait(false);
            }

            await Console.Error.WriteLineAsync($"dedup: --catalog: {OneLine(error)}").ConfigureAwait(false);
            return null;
        }
    }

    /// <summary>Why <paramref name="machine"/> cannot name a machine, or <see langword="null"/>.</summary>
    public static string? MachineProblem(string machine) =>
        string.IsNullOrWhiteSpace(machine) ? "--machine must not be empty"
        : machine.Length > PostgresCatalog.MaxMachineNameLength ? $"--machine is at most {PostgresCatalog.MaxMachineNameLength} characters"
        : null;

    /// <summary>The error's message on one line (the server's messages may hold line breaks), control characters escaped.</summary>
    public static string OneLine(Exception error) =>
        PathText.EscapeMessage(string.Join(' ', error.Message.Split(['\n', '\r'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)));
}
