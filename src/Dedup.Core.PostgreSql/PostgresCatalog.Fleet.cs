using System.Runtime.CompilerServices;
using Npgsql;

namespace Dedup.Core.PostgreSql;

// The fleet view: what the catalog holds, read without scanning (dedup catalog machines/groups; forget is
// DeleteMachineAsync).
public sealed partial class PostgresCatalog
{
    // Pending digests from the requests (#40 point 1), not the file rows: a size of a machine is asked of it only while
    // it is marked without a digest (a size one of its files has, which no other machine held when it scanned), so each
    // size asked is one file (identity) waiting (a join of every file row with the digests took 10-12 s at 2.5 M rows;
    // this reads the requests' primary key).
    private const string PendingSql = "SELECT machine_id, count(DISTINCT size) FROM dedup.digest_requests GROUP BY machine_id";

    // The machine ids of the file rows with no machines row (deleted by hand), each with its rows: one probe of the
    // machine index per machine id (a skip scan), then a count of the orphans' rows alone.
    private const string OrphanFilesSql = """
        WITH RECURSIVE ids AS (
          SELECT min(machine_id) AS id FROM dedup.files
          UNION ALL
          SELECT (SELECT min(f.machine_id) FROM dedup.files f WHERE f.machine_id > ids.id) FROM ids WHERE ids.id IS NOT NULL)
        SELECT ids.id, (SELECT count(*) FROM dedup.files f WHERE f.machine_id = ids.id)
        FROM ids WHERE ids.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dedup.machines m WHERE m.id = ids.id)
        ORDER BY ids.id
        """;

    /// <summary>The rows per page a fleet listing starts with; tests make it small to cross page boundaries.</summary>
    internal int FleetFirstPageSize { get; set; } = FleetGroupPages.FirstPageSize;

    /// <summary>
    /// The machines of the catalog, by name: when each last scanned, the file rows its last scan stored, and how many
    /// of its files other machines asked a digest of (<see cref="FleetMachine.PendingDigests"/>). Reads the machines
    /// and the digest requests, not the file rows.
    /// </summary>
    /// <param name="skipped">Called once per machine id whose rows have no <c>dedup.machines</c> row (deleted by hand), naming them and the statements that remove them; those rows are not listed.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The machines, ordered by name (ordinal).</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public Task<IReadOnlyList<FleetMachine>> GetFleetMachinesAsync(Action<string>? skipped = null, CancellationToken cancellationToken = default) =>
        RunAsync<IReadOnlyList<FleetMachine>>("listing machines", async (connection, token) =>
        {
            // One snapshot for the names and the rows counted under them.
            await using var transaction = await connection.BeginTransactionAsync(System.Data.IsolationLevel.RepeatableRead, token).ConfigureAwait(false);
            var pending = new Dictionary<int, long>();
            await using (var command = new NpgsqlCommand(PendingSql, connection))
            await using (var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false))
            {
                while (await reader.ReadAsync(token).ConfigureAwait(false))
                {
                    pending[reader.GetInt32(0)] = reader.GetInt64(1);
                }
            }

            // A machine's files are the rows its last scan stored (written with them, in their transaction).
            var machines = new List<FleetMachine>();
            await using (var command = new NpgsqlCommand("SELECT id, name, scanned_at, file_count FROM dedup.machines ORDER BY name COLLATE \"C\"", connection))
            await using (var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false))
            {
                while (await reader.ReadAsync(token).ConfigureAwait(false))
                {
                    machines.Add(new FleetMachine { Name = reader.GetString(1), ScannedAt = reader.GetFieldValue<DateTimeOffset>(2), Files = reader.GetInt64(3), PendingDigests = pending.GetValueOrDefault(reader.GetInt32(0)) });
                }
            }

            var orphans = new List<(int Id, long Rows)>();
            await using (var command = new NpgsqlCommand(OrphanFilesSql, connection))
            await using (var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false))
            {
                while (await reader.ReadAsync(token).ConfigureAwait(false))
                {
                    orphans.Add((reader.GetInt32(0), reader.GetInt64(1)));
                }
            }

            await transaction.CommitAsync(token).ConfigureAwait(false);
            foreach (var (id, files) in orphans)
            {
                skipped?.Invoke(OrphanFilesMessage(id, files));
            }

            return machines;
        }, cancellationToken);

    /// <summary>
    /// The fleet's duplicates: every content (size and SHA-256) that files of two or more machines share, as of
    /// their last scans, largest waste first (then larger size, then higher digest). Read in pages as it is
    /// enumerated: the server sends a page of groups at a time (keyset pagination), so a fleet's groups are never held
    /// whole; all pages read one snapshot of the catalog, held until the enumeration ends.
    /// </summary>
    /// <param name="machine">Only the groups holding a file of this machine; <see langword="null"/> for the whole fleet. A machine the catalog does not know lists nothing.</param>
    /// <param name="skipped">
    /// Called after the last group, once per kind of row left out and machine: rows of a machine id with no
    /// <c>dedup.machines</c> row, digests with no file row of their stamp, file rows with an empty path (each written by
    /// hand; the library writes none), and the groups that without them hold no copies on two machines.
    /// </param>
    /// <param name="cancellationToken">Cancels the enumeration.</param>
    /// <returns>The groups; each lists every name of its files.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used (thrown by the enumeration).</exception>
    public IAsyncEnumerable<FleetGroup> ReadFleetGroupsAsync(string? machine = null, Action<string>? skipped = null, CancellationToken cancellationToken = default)
    {
        if (machine is not null)
        {
            ValidateMachine(machine);
        }

        return ReadFleetGroupPagesAsync(machine, skipped, cancellationToken);
    }

    private async IAsyncEnumerable<FleetGroup> ReadFleetGroupPagesAsync(string? machine, Action<string>? skipped, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        const string Operation = "listing groups";
        bool opened = false;
        NpgsqlConnection? held = null;
        var pages = await GuardAsync(Operation, async () =>
        {
            var connection = await _dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
            (opened, held) = (true, connection);
            try
            {
                if (!_migrated)
                {
                    await CatalogSchema.MigrateAsync(connection, cancellationToken).ConfigureAwait(false);
                    _migrated = true;
                }

                var opened = await FleetGroupPages.OpenAsync(connection, machine, FleetFirstPageSize, cancellationToken).ConfigureAwait(false);
                if (opened is null)
                {
                    await connection.DisposeAsync().ConfigureAwait(false);
                }

                return opened;
            }
            catch
            {
                await connection.DisposeAsync().ConfigureAwait(false);
                throw;
            }
        }, () => (opened, IsBroken(held))).ConfigureAwait(false);
        if (pages is null)
        {
            yield break;
        }

        await using (pages.ConfigureAwait(false))
        {
            while (true)
            {
                var page = await GuardAsync(Operation, () => pages.NextPageAsync(cancellationToken), () => (true, IsBroken(held))).ConfigureAwait(false);
                if (page.Count == 0)
                {
                    break;
                }

                foreach (var group in page)
                {
                    yield return group;
                }
            }

            foreach (string message in pages.Skips.Messages())
            {
                skipped?.Invoke(message);
            }
        }
    }

    /// <summary>Runs a step of a read that holds its connection, turning failures into <see cref="CatalogException"/>s as <see cref="RunAsync{T}"/> does.</summary>
    /// <param name="operation">What the catalog was doing, for the message.</param>
    /// <param name="step">The step.</param>
    /// <param name="state">Whether the connection had been opened, and whether Npgsql marked it broken, when the step failed.</param>
    private async Task<T> GuardAsync<T>(string operation, Func<Task<T>> step, Func<(bool Opened, bool Broken)> state)
    {
        try
        {
            return await step().ConfigureAwait(false);
        }
        catch (Exception error)
        {
            var (opened, broken) = state();
            if (_errors.Translate(error, opened, operation, broken) is { } translated)
            {
                throw translated;
            }

            throw;
        }
    }

    private static bool IsBroken(NpgsqlConnection? connection) =>
        connection is not null && (connection.FullState & System.Data.ConnectionState.Broken) != 0;

    private static string OrphanFilesMessage(int id, long rows) =>
        string.Create(
            System.Globalization.CultureInfo.InvariantCulture,
            $"The catalog's {rows} file {(rows == 1 ? "row" : "rows")} of machine id {id} {(rows == 1 ? "was" : "were")} left out: ")
        + CatalogOrphans.Advice(id);
}
