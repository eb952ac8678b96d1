using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Npgsql;

namespace Dedup.Core.PostgreSql;

// The calls a scan makes (FileCatalog), and recording digests: the scan protocol, kept apart from the store's other operations.
public sealed partial class PostgresCatalog
{
    // Any fixed number (not the migrations'): the advisory lock that serialises digest request exchanges.
    private const long ExchangeLock = 0x6465_6475_7034_30;

    /// <summary>
    /// Replaces all of a machine's files with <paramref name="files"/> in one transaction: other clients see either
    /// the previous scan or this one. A file whose complete stamp (identity, size, times) is unchanged keeps its
    /// digest, whatever its path; the digests of other files are dropped. A machine's first scan is copied straight
    /// into the catalog (binary COPY); a rescan is copied into a temporary table and only the rows that changed are
    /// deleted and inserted, so an unchanged tree costs no writes to the catalog's tables. The machine keeps a
    /// fingerprint of its rows (their count and the sum of their SHA-256s): a rescan whose files have it writes nothing,
    /// and one given as a collection sends nothing either. Paths are unique per scan.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="files">Every file of the scan, streamed to the server; an <see cref="IReadOnlyCollection{T}"/> is enumerated twice when the catalog has its machine's rows fingerprint (first to compare it), anything else once.</param>
    /// <param name="cancellationToken">Cancels the replacement (rolled back: the previous scan stays).</param>
    /// <returns>How many rows were stored.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public override async Task<long> ReplaceFilesAsync(string machine, IEnumerable<CatalogFile> files, CancellationToken cancellationToken = default) =>
        (await ReplaceMachineFilesAsync(machine, files, cancellationToken).ConfigureAwait(false)).Files;

    /// <summary>
    /// <see cref="ReplaceFilesAsync"/> and the recording of the digests in one transaction: other clients see the
    /// previous scan, or this one's files with their digests. A machine's first scan copies the digests straight into
    /// the catalog while they arrive (its files were copied first); a rescan, whose digests are the few of new or
    /// edited files, records them as <see cref="RecordDigestsAsync"/> does once the last arrived. A digest whose stamp
    /// none of <paramref name="files"/> has is ignored; of several for one file, the first counts.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="files">Every file of the scan, streamed to the server; an <see cref="IReadOnlyCollection{T}"/> is enumerated twice when the catalog has its machine's rows fingerprint (first to compare it), anything else once.</param>
    /// <param name="digests">The digests, enumerated once after <paramref name="files"/>; the transaction stays open until they end.</param>
    /// <param name="cancellationToken">Cancels the replacement (rolled back: the previous scan stays).</param>
    /// <returns>How many rows were stored.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public override Task<long> ReplaceFilesAndRecordDigestsAsync(string machine, IEnumerable<CatalogFile> files, IAsyncEnumerable<CatalogDigest> digests, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(files);
        ArgumentNullException.ThrowIfNull(digests);
        return RunAsync("replacing a machine's files", async (connection, token) =>
        {
            await using var transaction = await connection.BeginTransactionAsync(token).ConfigureAwait(false);
            // Locks this machine's row until the digests are in: a second scan or recording of the machine waits.
            var machineRow = await CatalogWriter.MachineRowAsync(connection, machine, token).ConfigureAwait(false);
            var id = machineRow.Id;
            CatalogWriter.Replaced replaced;
            if (machineRow.PreviousFiles == 0)
            {
                var stamps = new CopiedStamps();
                replaced = await CatalogWriter.CopyFirstAsync(connection, id, files, stamps, token).ConfigureAwait(false);
                // None is expected (a machine without files has no digests); deleted so the COPY below cannot collide.
                await ExecuteAsync(connection, "DELETE FROM dedup.digests WHERE machine_id = $1", token, id).ConfigureAwait(false);
                await CatalogDigestWriter.CopyAsync(connection, id, digests, stamps, token).ConfigureAwait(false);
            }
            else
            {
                replaced = await CatalogWriter.ReplaceByDifferenceAsync(connection, machineRow, files, token).ConfigureAwait(false);
                await DropStaleDigestsAsync(connection, id, replaced.Changed ? StaleDigests.UnderGoneRows : StaleDigests.Untrusted, token).ConfigureAwait(false);
                var arrived = new List<CatalogDigest>();
                await foreach (CatalogDigest digest in digests.WithCancellation(token).ConfigureAwait(false))
                {
                    arrived.Add(digest);
                }

                if (arrived.Count > 0)
                {
                    await CatalogDigestWriter.RecordAsync(connection, id, arrived, token).ConfigureAwait(false);
                }
            }

            await CatalogWriter.FinishAsync(connection, id, replaced, token).ConfigureAwait(false);
            await transaction.CommitAsync(token).ConfigureAwait(false);
            return (long)replaced.Rows;
        }, cancellationToken);
    }

    /// <summary>Which of <paramref name="sizes"/> a file of another machine than <paramref name="machine"/> has.</summary>
    /// <param name="machine">The machine's name (need not be known to the catalog).</param>
    /// <param name="sizes">File sizes in bytes.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The sizes other machines have, each once.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public override Task<IReadOnlyCollection<long>> GetSizesOnOtherMachinesAsync(string machine, IReadOnlyCollection<long> sizes, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(sizes);
        return RunAsync<IReadOnlyCollection<long>>("querying sizes of other machines", async (connection, token) =>
        {
            var shared = new HashSet<long>();
            // One array parameter, answered by the machines' sizes (their primary key); ids start at 1, so 0 stands for a machine not known yet.
            await using var command = Command(
                connection,
                """
                SELECT s.size FROM unnest($2::bigint[]) AS s(size)
                WHERE EXISTS (SELECT 1 FROM dedup.machine_sizes o WHERE o.size = s.size
                  AND o.machine_id <> coalesce((SELECT id FROM dedup.machines WHERE name = $1), 0))
                """,
                machine,
                sizes.Distinct().ToArray());
            await using var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false);
            while (await reader.ReadAsync(token).ConfigureAwait(false))
            {
                shared.Add(reader.GetInt64(0));
            }

            return shared;
        }, cancellationToken);
    }

    /// <summary>The stamps of a machine's files that have a digest stored, which a rescan keeps while a file's stamp is unchanged.</summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The stamps; empty for a machine the catalog does not know.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public override Task<IReadOnlyCollection<FileStamp>> GetDigestedFilesAsync(string machine, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        return RunAsync<IReadOnlyCollection<FileStamp>>("querying stored digests", async (connection, token) =>
        {
            var stamps = new HashSet<FileStamp>();
            await ReadStoredDigestsAsync(connection, machine, withSha256: false, copy => stamps.Add(ReadStamp(copy, 0)), token).ConfigureAwait(false);
            return stamps;
        }, cancellationToken);
    }

    /// <summary>
    /// Reads the stored digests of a machine's files (nothing for a machine the catalog does not know) by binary COPY,
    /// the id written in (a COPY takes no parameters): a rescan asks for every one as it starts, while it lists, and
    /// reading 250k of them value by value through a data reader was ~0.15 s of its CPU. A ctime of 0 is never trusted:
    /// the rescan drops such a digest. Each row is the stamp's five columns, then the SHA-256 when asked for.
    /// </summary>
    private static async Task ReadStoredDigestsAsync(NpgsqlConnection connection, string machine, bool withSha256, Action<BinaryCopyReader> row, CancellationToken cancellationToken)
    {
        int? id = await ScalarAsync<int?>(connection, "SELECT id FROM dedup.machines WHERE name = $1", cancellationToken, machine).ConfigureAwait(false);
        if (id is null)
        {
            return;
        }

        await using var copy = await BinaryCopyReader.BeginAsync(
            connection,
            $"COPY (SELECT {Columns("d")}{(withSha256 ? ", d.sha256" : "")} FROM dedup.digests d WHERE d.machine_id = {id.Value.ToString(System.Globalization.CultureInfo.InvariantCulture)} AND d.ctime_ns <> 0) TO STDOUT (FORMAT BINARY)",
            cancellationToken).ConfigureAwait(false);
        while (await copy.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            row(copy);
        }
    }

    /// <summary>
    /// The other machines' files of <paramref name="machine"/>'s stored contents (or of <paramref name="contents"/>),
    /// grouped by content, without <paramref name="machine"/>'s own files: the read of
    /// <see cref="FindGroupsAcrossMachinesAsync(string, Action{string}, CancellationToken)"/> without its half that sends
    /// the machine's rows back, which a scan given <see cref="GetDigestsAsync"/> does not need.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="contents">The contents wanted (size from each stamp, and SHA-256; repeats count once); <see langword="null"/>: every content stored for the machine.</param>
    /// <param name="skipped">Called once per machine id left out, after the read.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups, largest size first, each one's files by machine name, then path bytes; none for no contents.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public override Task<IReadOnlyList<CatalogGroup>> FindFilesOnOtherMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest>? contents, Action<string> skipped, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(skipped);
        if (contents is { Count: 0 })
        {
            return Task.FromResult<IReadOnlyList<CatalogGroup>>([]);
        }

        var wanted = contents is null ? ((long[], byte[][])?)null : CatalogGroupReader.Contents(contents);
        return RunAsync("querying groups", (connection, token) => CatalogGroupReader.ReadAsync(connection, machine, GroupRead.OtherMachines, skipped, token, wanted), cancellationToken);
    }

    /// <summary>
    /// The digests stored for a machine's files, stamps with their SHA-256s: what a scan asks as it starts, so that the
    /// groups it reads need not hold its own files (<see cref="FindFilesOnOtherMachinesAsync"/>). A digest under a ctime
    /// of 0 is left out, as by <see cref="GetDigestedFilesAsync"/>.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The digests; empty for a machine the catalog does not know.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public override Task<IReadOnlyCollection<CatalogDigest>?> GetDigestsAsync(string machine, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        return RunAsync<IReadOnlyCollection<CatalogDigest>?>("querying stored digests", async (connection, token) =>
        {
            var digests = new List<CatalogDigest>();
            // The digests' bytes in shared chunks: no array per digest.
            var bytes = new ByteChunks();
            await ReadStoredDigestsAsync(connection, machine, withSha256: true, copy => digests.Add(new CatalogDigest(ReadStamp(copy, 0), bytes.Add(copy.GetBytes(5)))), token).ConfigureAwait(false);
            return digests;
        }, cancellationToken);
    }

    /// <summary>
    /// Stores digests for a machine's files whose stamp equals the digest's (one per identity: every name of a
    /// hard-linked file has it). A digest whose stamp no file row has (the file changed after the scan stored it)
    /// is ignored. A digest stays stored across rescans while the file's stamp is unchanged and complete; one given
    /// again for a file replaces it (of several given at once for one file, the first counts). One recording of a
    /// machine runs at a time: another waits for it.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="digests">The digests; enumerated once, held and sorted in memory, then sent to the server (not enumerated at all for a machine the catalog does not know).</param>
    /// <param name="cancellationToken">Cancels the recording (rolled back).</param>
    /// <returns>How many files (identities) received a digest.</returns>
    public override Task<long> RecordDigestsAsync(string machine, IEnumerable<CatalogDigest> digests, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(digests);
        return RunAsync("recording digests", async (connection, token) =>
        {
            await using var transaction = await connection.BeginTransactionAsync(token).ConfigureAwait(false);
            // FOR NO KEY UPDATE: waits for a rescan of this machine that is under way, in the same lock order as it, and
            // lets one recording of a machine run at a time, so the delete below and the insert after it cannot
            // interleave with another's (the primary key would refuse the second insert).
            int? id = await ScalarAsync<int?>(connection, "SELECT id FROM dedup.machines WHERE name = $1 FOR NO KEY UPDATE", token, machine).ConfigureAwait(false);
            if (id is null)
            {
                // An unknown machine has no file rows to match: nothing to stage.
                return 0L;
            }

            long recorded = await CatalogDigestWriter.RecordAsync(connection, id.Value, digests, token).ConfigureAwait(false);
            await transaction.CommitAsync(token).ConfigureAwait(false);
            return recorded;
        }, cancellationToken);
    }

    /// <summary>
    /// Marks which of <paramref name="machine"/>'s sizes its scan left without a digest, drops the requests it
    /// fulfilled, and records a request to each other machine that holds one of this machine's sizes without a digest
    /// (replacing this machine's earlier requests), in one transaction.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="undigestedSizes">The sizes of its files its scan left without a digest.</param>
    /// <param name="cancellationToken">Cancels the exchange (rolled back).</param>
    /// <returns>The sizes other machines had asked of this one, and per other machine the sizes it is now asked for.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public override Task<CatalogDigestRequests> ExchangeDigestRequestsAsync(string machine, IReadOnlyCollection<long> undigestedSizes, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(undigestedSizes);
        return RunAsync("exchanging digest requests", async (connection, token) =>
        {
            await using var transaction = await connection.BeginTransactionAsync(token).ConfigureAwait(false);
            // The machine's row first, as its scans lock it: one exchange of a machine at a time.
            int? id = await ScalarAsync<int?>(connection, "SELECT id FROM dedup.machines WHERE name = $1 FOR NO KEY UPDATE", token, machine).ConfigureAwait(false);
            if (id is null)
            {
                return CatalogDigestRequests.None;
            }

            // One exchange in the whole catalog at a time, each reading what the one before committed: two machines that
            // scanned at once, neither seeing the other's size at its barrier, each mark it undigested, and the later
            // exchange records the request that the earlier could not see (below). Each is a few small statements.
            await ExecuteAsync(connection, "SELECT pg_advisory_xact_lock($1)", token, ExchangeLock).ConfigureAwait(false);
            var asked = new List<long>();
            await using (var command = Command(connection, "SELECT DISTINCT size FROM dedup.digest_requests WHERE machine_id = $1", id.Value))
            await using (var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false))
            {
                while (await reader.ReadAsync(token).ConfigureAwait(false))
                {
                    asked.Add(reader.GetInt64(0));
                }
            }

            // Only the rows whose mark changes are written (joined, not `= ANY` or `<> ALL`: the array can hold every
            // size of a machine's first scan, and `<> ALL (subquery)` compared each row with each size: 1.6 s for a
            // first scan's 7,387 unique sizes, growing with their square; an anti-join hashes them).
            var sizes = undigestedSizes.Distinct().ToArray();
            await ExecuteAsync(
                connection,
                """
                UPDATE dedup.machine_sizes m SET digested = false FROM unnest($2::bigint[]) AS u(size)
                WHERE m.machine_id = $1 AND m.size = u.size AND m.digested
                """,
                token,
                id.Value,
                sizes).ConfigureAwait(false);
            await ExecuteAsync(
                connection,
                """
                UPDATE dedup.machine_sizes m SET digested = true
                WHERE m.machine_id = $1 AND NOT m.digested AND NOT EXISTS (SELECT 1 FROM unnest($2::bigint[]) AS u(size) WHERE u.size = m.size)
                """,
                token,
                id.Value,
                sizes).ConfigureAwait(false);
            await ExecuteAsync(
                connection,
                """
                DELETE FROM dedup.digest_requests r WHERE r.machine_id = $1 AND NOT EXISTS (
                  SELECT 1 FROM dedup.machine_sizes s WHERE s.machine_id = $1 AND s.size = r.size AND NOT s.digested)
                """,
                token,
                id.Value).ConfigureAwait(false);
            await ExecuteAsync(connection, "DELETE FROM dedup.digest_requests WHERE requested_by = $1", token, id.Value).ConfigureAwait(false);

            // Other machines' sizes without a digest that this machine holds too: asked again, and returned by name
            // (a machine id with no name, deleted by hand, is not asked).
            var pending = new Dictionary<string, IReadOnlyCollection<long>>(StringComparer.Ordinal);
            await using (var command = Command(
                connection,
                """
                WITH made AS (
                  INSERT INTO dedup.digest_requests (machine_id, size, requested_by)
                  SELECT o.machine_id, o.size, $1
                  FROM dedup.machine_sizes mine
                  JOIN dedup.machine_sizes o ON o.size = mine.size AND o.machine_id <> $1 AND NOT o.digested
                  WHERE mine.machine_id = $1 AND EXISTS (SELECT 1 FROM dedup.machines m WHERE m.id = o.machine_id)
                  RETURNING machine_id, size)
                SELECT m.name, made.size FROM made JOIN dedup.machines m ON m.id = made.machine_id
                """,
                id.Value))
            await using (var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false))
            {
                while (await reader.ReadAsync(token).ConfigureAwait(false))
                {
                    var name = reader.GetString(0);
                    if (!pending.TryGetValue(name, out var list))
                    {
                        pending[name] = list = new List<long>();
                    }

                    ((List<long>)list).Add(reader.GetInt64(1));
                }
            }

            // And this machine's own sizes without a digest that another machine holds: that machine's exchange ran
            // before this one's marks (the two scans ran at once), so it asked nothing; asked on its behalf here, as its
            // next exchange asks again, so that every size marked undigested and held elsewhere is asked of its machine.
            await ExecuteAsync(
                connection,
                """
                INSERT INTO dedup.digest_requests (machine_id, size, requested_by)
                SELECT $1, mine.size, o.machine_id
                FROM dedup.machine_sizes mine
                JOIN dedup.machine_sizes o ON o.size = mine.size AND o.machine_id <> $1
                WHERE mine.machine_id = $1 AND NOT mine.digested AND EXISTS (SELECT 1 FROM dedup.machines m WHERE m.id = o.machine_id)
                ON CONFLICT DO NOTHING
                """,
                token,
                id.Value).ConfigureAwait(false);
            await transaction.CommitAsync(token).ConfigureAwait(false);
            return new CatalogDigestRequests { AskedOfThisMachine = asked, Pending = pending };
        }, cancellationToken);
    }
}
