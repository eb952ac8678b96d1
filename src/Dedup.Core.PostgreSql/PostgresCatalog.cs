using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// A catalog of files shared by many machines on one PostgreSQL database: each machine stores its scanned files, and
/// the SHA-256 of those whose size another file shares, so duplicates are found across machines.
/// </summary>
/// <remarks>
/// <para>Its API is <see cref="FileCatalog"/>'s (what a scan plugged in with <see cref="DuplicateFinderBuilder.UseCatalog"/>
/// calls), plus the store's own operations: <see cref="MigrateAsync"/>, <see cref="GetMachinesAsync"/> and
/// <see cref="DeleteMachineAsync"/>.</para>
/// <para>Machines may write at the same time: each writes only its own rows, after locking its own row of the
/// machine table, so concurrent scans neither lose rows nor deadlock. The schema is created or upgraded on first use.
/// Every failure to reach or use the server is a <see cref="CatalogException"/>.</para>
/// <para>Digests, not bytes: files on different machines are matched by size and SHA-256 (collision-resistant, so
/// no client can craft a file matching another client's), never compared byte by byte.</para>
/// </remarks>
public sealed partial class PostgresCatalog : FileCatalog, IAsyncDisposable, IDisposable
{
    /// <summary>The longest machine name accepted, in characters.</summary>
    public const int MaxMachineNameLength = 255;

    /// <summary>The stamp's columns, in the order <see cref="ReadStamp(NpgsqlDataReader, int)"/> and <see cref="CatalogWriter.WriteStamp"/> use.</summary>
    internal const string FileColumns = "size, device, inode, mtime_ns, ctime_ns";

    /// <summary>The stamp's columns as a temporary table's column definitions.</summary>
    internal const string FileColumnDefinitions = "size bigint, device bigint, inode bigint, mtime_ns bigint, ctime_ns bigint";
    private readonly NpgsqlDataSource _dataSource;
    private readonly CatalogErrors _errors;
    private volatile bool _migrated;

    /// <summary>Creates a catalog for the database a connection string names; nothing is connected yet.</summary>
    /// <param name="connectionString">An Npgsql connection string, e.g. <c>Host=db;Database=dedup;Username=dedup;Password=…</c>.</param>
    /// <exception cref="CatalogException">The connection string cannot be parsed (<see cref="CatalogErrorKind.InvalidConnectionString"/>).</exception>
    public PostgresCatalog(string connectionString)
    {
        ArgumentNullException.ThrowIfNull(connectionString);
        NpgsqlConnectionStringBuilder builder;
        try
        {
            builder = new NpgsqlConnectionStringBuilder(connectionString);
        }
        catch (Exception error) when (error is ArgumentException or FormatException or InvalidCastException or OverflowException)
        {
            // Npgsql's parse errors name the keyword, not its value, so no password can leak through them.
            throw CatalogErrors.InvalidConnectionString(error.Message, error);
        }

        if (string.IsNullOrWhiteSpace(builder.Host))
        {
            throw CatalogErrors.InvalidConnectionString("it names no Host.", null);
        }

        if (string.IsNullOrEmpty(builder.ApplicationName))
        {
            builder.ApplicationName = "dedup";
        }

        if (builder.CommandTimeout == DefaultNpgsqlCommandTimeout)
        {
            // Npgsql's 30 s suits single-row queries; the catalog's statements move whole machines (measured: up to
            // 30 s for one query at a million files on a loaded 2-core server). A timeout set in the string is kept.
            builder.CommandTimeout = DefaultCommandTimeoutSeconds;
        }

        _errors = new CatalogErrors(builder.Host, builder.Port, builder.Database ?? builder.Username, builder.Password);
        // The slim builder: no reflection-based type mappings, so NativeAOT builds (the CLI) publish without warnings.
        // TLS stays available for connection strings that ask for it; arrays carry the sizes a scan asks about.
        _dataSource = new NpgsqlSlimDataSourceBuilder(builder.ConnectionString).EnableTransportSecurity().EnableArrays().Build();
    }

    /// <summary>The command timeout used when the connection string leaves Npgsql's default (30 s), in seconds.</summary>
    public const int DefaultCommandTimeoutSeconds = 600;

    private const int DefaultNpgsqlCommandTimeout = 30;

    /// <summary>The schema version this library creates and uses.</summary>
    public static int SchemaVersion => CatalogSchema.LatestVersion;

    /// <summary>Creates or upgrades the catalog's schema (also done on first use of any other method).</summary>
    /// <param name="cancellationToken">Cancels the migration (rolled back).</param>
    /// <returns>The schema version found before: 0 for an empty database.</returns>
    public Task<int> MigrateAsync(CancellationToken cancellationToken = default) =>
        RunAsync("migrating the schema", (connection, token) => CatalogSchema.MigrateAsync(connection, token), cancellationToken, migrate: false);

    /// <summary>
    /// <see cref="ReplaceFilesAsync"/>, also counting the digests kept. Internal, as the other queries of the earlier
    /// scan protocol below (the catalog's tests and benchmarks/catalog use them): a consumer uses the
    /// <see cref="FileCatalog"/> API.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="files">Every file of the scan, streamed to the server; an <see cref="IReadOnlyCollection{T}"/> is enumerated twice when the catalog has its machine's rows fingerprint (first to compare it), anything else once.</param>
    /// <param name="cancellationToken">Cancels the replacement (rolled back: the previous scan stays).</param>
    /// <returns>How many rows were stored and how many kept their digest.</returns>
    internal Task<CatalogReplaceResult> ReplaceMachineFilesAsync(string machine, IEnumerable<CatalogFile> files, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(files);
        return RunAsync("replacing a machine's files", async (connection, token) =>
        {
            await using var transaction = await connection.BeginTransactionAsync(token).ConfigureAwait(false);
            // Locks this machine's row: a second scan of the same machine waits here; other machines do not.
            // file_count is the previous scan's: the update below leaves it alone.
            var machineRow = await CatalogWriter.MachineRowAsync(connection, machine, token).ConfigureAwait(false);
            var id = machineRow.Id;
            var replaced = machineRow.PreviousFiles == 0
                ? await CatalogWriter.CopyFirstAsync(connection, id, files, stamps: null, token).ConfigureAwait(false)
                : await CatalogWriter.ReplaceByDifferenceAsync(connection, machineRow, files, token).ConfigureAwait(false);

            var stale = machineRow.PreviousFiles == 0 ? StaleDigests.All : replaced.Changed ? StaleDigests.UnderGoneRows : StaleDigests.Untrusted;
            await DropStaleDigestsAsync(connection, id, stale, token).ConfigureAwait(false);
            long kept = await ScalarAsync<long>(connection, "SELECT count(*) FROM dedup.digests WHERE machine_id = $1", token, id).ConfigureAwait(false);
            await CatalogWriter.FinishAsync(connection, id, replaced, token).ConfigureAwait(false);
            await transaction.CommitAsync(token).ConfigureAwait(false);
            return new CatalogReplaceResult((long)replaced.Rows, kept);
        }, cancellationToken);
    }

    /// <summary>
    /// The sizes of a machine's files that some other file in the catalog also has: another file of this machine
    /// (not a hard link of the same file) or any file of another machine. Only these files need a digest.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The shared sizes; empty for a machine the catalog does not know.</returns>
    internal Task<IReadOnlySet<long>> GetSharedSizesAsync(string machine, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        return RunAsync<IReadOnlySet<long>>("querying shared sizes", async (connection, token) =>
        {
            var sizes = new HashSet<long>();
            await using var command = Command(connection, SharedSizesSql + " SELECT size FROM shared", machine);
            await using var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false);
            while (await reader.ReadAsync(token).ConfigureAwait(false))
            {
                sizes.Add(reader.GetInt64(0));
            }

            return sizes;
        }, cancellationToken);
    }

    /// <summary>
    /// A machine's files that need a digest: their size is shared (see <see cref="GetSharedSizesAsync"/>) and no
    /// digest is stored for them. Hard links appear once per name; hash each identity once.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The files, in no particular order (the server does not sort them).</returns>
    internal Task<IReadOnlyList<CatalogFile>> GetFilesToHashAsync(string machine, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        return RunAsync<IReadOnlyList<CatalogFile>>("querying files to hash", async (connection, token) =>
        {
            var files = new List<CatalogFile>();
            await using var command = Command(
                connection,
                SharedSizesSql + ToHashSql($"{Columns("f")}, f.path"),
                machine);
            await using var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false);
            while (await reader.ReadAsync(token).ConfigureAwait(false))
            {
                files.Add(new CatalogFile(reader.GetFieldValue<byte[]>(5), ReadStamp(reader, 0)));
            }

            return files;
        }, cancellationToken);
    }

    /// <summary>
    /// Every group of two or more distinct files (of any machines, as of their last scans) with the same size and
    /// digest as a file of <paramref name="machine"/>: the groups its scan reports beside its local ones. Rows of a
    /// machine id with no row in <c>dedup.machines</c> are left out.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups, largest size first; hard links of one file count as one file.</returns>
    internal Task<IReadOnlyList<CatalogGroup>> FindGroupsAsync(string machine, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        return RunAsync("querying groups", (connection, token) => CatalogGroupReader.ReadAsync(connection, machine, GroupRead.All, skipped: null, token), cancellationToken);
    }

    /// <summary>
    /// Every group of two or more distinct files (of any machines, as of their last scans) with the same size and
    /// SHA-256 as a file of <paramref name="machine"/> and holding files of another machine: what a scan plugged in
    /// with <see cref="DuplicateFinderBuilder.UseCatalog"/> reports beside its own groups. Rows of a machine id with no
    /// row in <c>dedup.machines</c> are left out. The
    /// files of <paramref name="machine"/> itself come with their stamps but an empty <see cref="CatalogMatch.Path"/>:
    /// the scan knows their names, and a fleet's read would otherwise send every path of the machine back to it.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups, largest size first; hard links of one file count as one file.</returns>
    public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, CancellationToken cancellationToken = default) =>
        FindGroupsAcrossMachinesAsync(machine, static _ => { }, cancellationToken);

    /// <summary>
    /// <see cref="FindGroupsAcrossMachinesAsync(string, CancellationToken)"/>, naming the rows left out: those of a
    /// machine id with no row in <c>dedup.machines</c> (deleted by hand: the schema has no foreign keys), once per id
    /// with how many of its rows matched and the statements that remove them.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="skipped">Called once per machine id left out, after the read.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups, largest size first; hard links of one file count as one file.</returns>
    public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, Action<string> skipped, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(skipped);
        return RunAsync("querying groups", (connection, token) => CatalogGroupReader.ReadAsync(connection, machine, GroupRead.AcrossMachines, skipped, token), cancellationToken);
    }

    /// <summary>
    /// <see cref="FindGroupsAcrossMachinesAsync(string, Action{string}, CancellationToken)"/> for the contents of
    /// <paramref name="digests"/> only: the server matches the other machines' digests against these instead of every
    /// digest of the machine, so a rescan that hashed a few files reads a few groups.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="digests">The contents wanted (size from each stamp, and SHA-256); repeats count once.</param>
    /// <param name="skipped">Called once per machine id left out, after the read.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups with one of those contents, largest size first; none for no digests.</returns>
    public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest> digests, Action<string> skipped, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(digests);
        ArgumentNullException.ThrowIfNull(skipped);
        if (digests.Count == 0)
        {
            return Task.FromResult<IReadOnlyList<CatalogGroup>>([]);
        }

        var contents = CatalogGroupReader.Contents(digests);
        return RunAsync("querying groups", (connection, token) => CatalogGroupReader.ReadAsync(connection, machine, GroupRead.AcrossMachines, skipped, token, contents), cancellationToken);
    }

    /// <summary>The machines the catalog holds, by name.</summary>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>Each machine's name, row count and last scan time.</returns>
    public Task<IReadOnlyList<CatalogMachine>> GetMachinesAsync(CancellationToken cancellationToken = default) =>
        RunAsync<IReadOnlyList<CatalogMachine>>("listing machines", async (connection, token) =>
        {
            var machines = new List<CatalogMachine>();
            await using var command = new NpgsqlCommand("SELECT name, file_count, scanned_at FROM dedup.machines ORDER BY name COLLATE \"C\"", connection);
            await using var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false);
            while (await reader.ReadAsync(token).ConfigureAwait(false))
            {
                machines.Add(new CatalogMachine(reader.GetString(0), reader.GetInt64(1), reader.GetFieldValue<DateTimeOffset>(2)));
            }

            return machines;
        }, cancellationToken);

    /// <summary>Removes a machine and all its rows.</summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="cancellationToken">Cancels the removal (rolled back).</param>
    /// <returns>Whether the catalog knew the machine.</returns>
    public Task<bool> DeleteMachineAsync(string machine, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        return RunAsync("deleting a machine", async (connection, token) =>
        {
            await using var transaction = await connection.BeginTransactionAsync(token).ConfigureAwait(false);
            int? id = await ScalarAsync<int?>(connection, "DELETE FROM dedup.machines WHERE name = $1 RETURNING id", token, machine).ConfigureAwait(false);
            if (id is not null)
            {
                await ExecuteAsync(connection, "DELETE FROM dedup.files WHERE machine_id = $1", token, id.Value).ConfigureAwait(false);
                await ExecuteAsync(connection, "DELETE FROM dedup.digests WHERE machine_id = $1", token, id.Value).ConfigureAwait(false);
                await ExecuteAsync(connection, "DELETE FROM dedup.machine_sizes WHERE machine_id = $1", token, id.Value).ConfigureAwait(false);
                await ExecuteAsync(connection, "DELETE FROM dedup.digest_requests WHERE machine_id = $1 OR requested_by = $1", token, id.Value).ConfigureAwait(false);
            }

            await transaction.CommitAsync(token).ConfigureAwait(false);
            return id is not null;
        }, cancellationToken);
    }

    /// <inheritdoc />
    public ValueTask DisposeAsync() => _dataSource.DisposeAsync();

    /// <inheritdoc />
    public void Dispose() => _dataSource.Dispose();

    /// <summary>Which digests a replacement of a machine's files may have left without their file (<see cref="DropStaleDigestsAsync"/>).</summary>
    internal enum StaleDigests
    {
        /// <summary>After a first copy: every digest is checked against the files.</summary>
        All,

        /// <summary>After a difference: only the digests under a stamp whose rows went (<c>dedup_gone</c>).</summary>
        UnderGoneRows,

        /// <summary>No row was written (the rows had the stored fingerprint): only the untrusted ones.</summary>
        Untrusted,
    }

    /// <summary>
    /// After a machine's files were replaced: digests stay valid only under an unchanged, complete stamp (a ctime of 0 is
    /// never trusted). After a difference only the digests under a stamp whose rows went can have lost their file, so
    /// only those are looked up (measured at 250k unchanged files: 0.41 s for the anti-join of every digest of the
    /// machine with its files); after a first copy, every digest is checked; when no row was written, none lost its file.
    /// </summary>
    internal static async Task<int> DropStaleDigestsAsync(NpgsqlConnection connection, int id, StaleDigests which, CancellationToken token)
    {
        // A rescan's difference turned nested loops off for its anti-joins (CatalogWriter); the few stamps that went, and
        // the digests recorded next, probe keys, which a nested loop does best.
        await ExecuteAsync(connection, "SET LOCAL enable_nestloop = on", token).ConfigureAwait(false);
        if (which == StaleDigests.All)
        {
            return await ExecuteAsync(
                connection,
                $"""
                DELETE FROM dedup.digests d WHERE d.machine_id = $1 AND (d.ctime_ns = 0 OR NOT EXISTS (
                  SELECT 1 FROM dedup.files f WHERE f.machine_id = $1 AND {SameStamp("f", "d")}))
                """,
                token,
                id).ConfigureAwait(false);
        }

        var gone = 0;
        if (which == StaleDigests.UnderGoneRows)
        {
            await ExecuteAsync(connection, "ANALYZE dedup_gone", token).ConfigureAwait(false);
            gone = await ExecuteAsync(
                connection,
                $"""
                DELETE FROM dedup.digests d USING dedup_gone g
                WHERE d.machine_id = $1 AND {SameStamp("g", "d")}
                  AND NOT EXISTS (SELECT 1 FROM dedup.files f WHERE f.machine_id = $1 AND {SameStamp("f", "d")})
                """,
                token,
                id).ConfigureAwait(false);
        }

        return gone + await ExecuteAsync(connection, "DELETE FROM dedup.digests d WHERE d.machine_id = $1 AND d.ctime_ns = 0", token, id).ConfigureAwait(false);
    }

    // This machine's sizes that another file shares: another identity on this machine (min/max differ) or any file of
    // another machine (its machine's sizes row).
    private const string SharedSizesSql = """
        WITH me AS (SELECT id FROM dedup.machines WHERE name = $1),
        mine AS (
          SELECT f.size, count(*) > 1 AND (min(f.device) <> max(f.device) OR min(f.inode) <> max(f.inode)) AS local
          FROM dedup.files f, me WHERE f.machine_id = me.id GROUP BY f.size),
        shared AS (
          SELECT mine.size FROM mine, me
          WHERE mine.local OR EXISTS (SELECT 1 FROM dedup.machine_sizes o WHERE o.size = mine.size AND o.machine_id <> me.id))
        """;

    /// <summary>After <see cref="SharedSizesSql"/>: the machine's rows of a shared size without a digest under their stamp.</summary>
    private static string ToHashSql(string select) => $"""
         SELECT {select}
         FROM dedup.files f JOIN shared s ON s.size = f.size, me
         WHERE f.machine_id = me.id AND NOT EXISTS (
           SELECT 1 FROM dedup.digests d WHERE d.machine_id = me.id AND {SameStamp("d", "f")})
        """;

    /// <summary><see cref="FileColumns"/> qualified by <paramref name="alias"/>.</summary>
    internal static string Columns(string alias) =>
        $"{alias}.size, {alias}.device, {alias}.inode, {alias}.mtime_ns, {alias}.ctime_ns";

    /// <summary>The SQL condition that two rows carry the same stamp (identity, size and both times).</summary>
    internal static string SameStamp(string a, string b) =>
        $"{a}.device = {b}.device AND {a}.inode = {b}.inode AND {a}.size = {b}.size AND {a}.mtime_ns = {b}.mtime_ns AND {a}.ctime_ns = {b}.ctime_ns";

    internal static FileStamp ReadStamp(BinaryCopyReader copy, int first) =>
        new(new FileIdentity(unchecked((ulong)copy.GetInt64(first + 1)), unchecked((ulong)copy.GetInt64(first + 2))),
            copy.GetInt64(first), copy.GetInt64(first + 3), copy.GetInt64(first + 4));

    internal static FileStamp ReadStamp(NpgsqlDataReader reader, int first) =>
        new(new FileIdentity(unchecked((ulong)reader.GetInt64(first + 1)), unchecked((ulong)reader.GetInt64(first + 2))),
            reader.GetInt64(first), reader.GetInt64(first + 3), reader.GetInt64(first + 4));

    private static void ValidateMachine(string machine)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(machine);
        if (machine.Length > MaxMachineNameLength)
        {
            throw new ArgumentException($"A machine name is at most {MaxMachineNameLength} characters.", nameof(machine));
        }
    }

    internal static NpgsqlCommand Command(NpgsqlConnection connection, string sql, params object[] parameters)
    {
        var command = new NpgsqlCommand(sql, connection);
        foreach (object parameter in parameters)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = parameter });
        }

        return command;
    }

    internal static async Task<int> ExecuteAsync(NpgsqlConnection connection, string sql, CancellationToken cancellationToken, params object[] parameters)
    {
        await using var command = Command(connection, sql, parameters);
        return await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    internal static async Task<T> ScalarAsync<T>(NpgsqlConnection connection, string sql, CancellationToken cancellationToken, params object[] parameters)
    {
        await using var command = Command(connection, sql, parameters);
        object? value = await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false);
        return value is null or DBNull ? default! : (T)value;
    }

    private async Task<T> RunAsync<T>(string operation, Func<NpgsqlConnection, CancellationToken, Task<T>> body, CancellationToken cancellationToken, bool migrate = true)
    {
        bool opened = false;
        bool broken = false;
        try
        {
            var connection = await _dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
            await using (connection.ConfigureAwait(false))
            {
                opened = true;
                try
                {
                    if (migrate && !_migrated)
                    {
                        await CatalogSchema.MigrateAsync(connection, cancellationToken).ConfigureAwait(false);
                        _migrated = true;
                    }

                    T result = await body(connection, cancellationToken).ConfigureAwait(false);
                    if (!migrate)
                    {
                        _migrated = true;
                    }

                    return result;
                }
                catch (Exception) when (NoteBroken(connection))
                {
                    throw; // never: the filter only looks at the connection before it is disposed
                }
            }
        }
        catch (Exception error)
        {
            if (_errors.Translate(error, opened, operation, broken) is { } translated)
            {
                throw translated;
            }

            throw;
        }

        bool NoteBroken(NpgsqlConnection connection)
        {
            broken = (connection.FullState & System.Data.ConnectionState.Broken) != 0;
            return false;
        }
    }
}
