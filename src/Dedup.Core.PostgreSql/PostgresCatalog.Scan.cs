using Dedup.Core.Caching;
using Dedup.Core.Catalog;
using Npgsql;
using NpgsqlTypes;

namespace Dedup.Core.PostgreSql;

// The calls a scan makes (FileCatalog), and recording digests: the scan protocol, kept apart from the store's other operations.
public sealed partial class PostgresCatalog
{
    /// <summary>
    /// What a scan plugged in with <see cref="DuplicateFinderBuilder.UseCatalog"/> calls at its size barrier, while it
    /// compares its files: <see cref="ReplaceMachineFilesAsync"/>.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="files">Every file of the scan; enumerated once, streamed to the server.</param>
    /// <param name="cancellationToken">Cancels the replacement (rolled back: the previous scan stays).</param>
    /// <returns>How many rows were stored.</returns>
    /// <exception cref="CatalogException">The server could not be reached or used.</exception>
    public override async Task<long> ReplaceFilesAsync(string machine, IEnumerable<CatalogFile> files, CancellationToken cancellationToken = default) =>
        (await ReplaceMachineFilesAsync(machine, files, cancellationToken).ConfigureAwait(false)).Files;

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
            // One array parameter, answered by the size index; ids start at 1, so 0 stands for a machine not known yet.
            await using var command = Command(
                connection,
                """
                SELECT s.size FROM unnest($2::bigint[]) AS s(size)
                WHERE EXISTS (SELECT 1 FROM dedup.files o WHERE o.size = s.size
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
            // A ctime of 0 is never trusted: the rescan drops such a digest.
            await using var command = Command(
                connection,
                $"SELECT {Columns("d")} FROM dedup.digests d JOIN dedup.machines m ON m.id = d.machine_id WHERE m.name = $1 AND d.ctime_ns <> 0",
                machine);
            await using var reader = await command.ExecuteReaderAsync(token).ConfigureAwait(false);
            while (await reader.ReadAsync(token).ConfigureAwait(false))
            {
                stamps.Add(ReadStamp(reader, 0));
            }

            return stamps;
        }, cancellationToken);
    }

    /// <summary>
    /// Stores digests for a machine's files whose stamp equals the digest's (one per identity: every name of a
    /// hard-linked file has it). A digest whose stamp no file row has (the file changed after the scan stored it)
    /// is ignored. A digest stays stored across rescans while the file's stamp is unchanged and complete.
    /// </summary>
    /// <param name="machine">The machine's name.</param>
    /// <param name="digests">The digests; enumerated once, streamed to the server (not at all for a machine the catalog does not know).</param>
    /// <param name="cancellationToken">Cancels the recording (rolled back).</param>
    /// <returns>How many files (identities) received a digest.</returns>
    public override Task<long> RecordDigestsAsync(string machine, IEnumerable<CatalogDigest> digests, CancellationToken cancellationToken = default)
    {
        ValidateMachine(machine);
        ArgumentNullException.ThrowIfNull(digests);
        return RunAsync("recording digests", async (connection, token) =>
        {
            await using var transaction = await connection.BeginTransactionAsync(token).ConfigureAwait(false);
            // FOR SHARE: waits for a rescan of this machine that is under way, in the same lock order as it.
            int? id = await ScalarAsync<int?>(connection, "SELECT id FROM dedup.machines WHERE name = $1 FOR SHARE", token, machine).ConfigureAwait(false);
            if (id is null)
            {
                // An unknown machine has no file rows to match: nothing to stage.
                return 0L;
            }

            // The sort of DISTINCT ON and the hash of the stamp check spilled to disk under the default 4 MB (measured:
            // 20 MB of temporary files at 250k digests).
            await ExecuteAsync(connection, $"SET LOCAL work_mem = '64MB'; CREATE TEMP TABLE dedup_incoming ({FileColumnDefinitions}, sha256 bytea) ON COMMIT DROP", token).ConfigureAwait(false);
            var copy = await connection.BeginBinaryImportAsync($"COPY dedup_incoming ({FileColumns}, sha256) FROM STDIN (FORMAT BINARY)", token).ConfigureAwait(false);
            await using (copy.ConfigureAwait(false))
            {
                foreach (CatalogDigest digest in digests)
                {
                    ArgumentNullException.ThrowIfNull(digest, nameof(digests));
                    await copy.StartRowAsync(token).ConfigureAwait(false);
                    await CatalogWriter.WriteStampAsync(copy, digest.Stamp, token).ConfigureAwait(false);
                    await copy.WriteAsync(digest.Sha256, NpgsqlDbType.Bytea, token).ConfigureAwait(false);
                }

                await copy.CompleteAsync(token).ConfigureAwait(false);
            }

            await ExecuteAsync(connection, "ANALYZE dedup_incoming", token).ConfigureAwait(false);
            long recorded = await ExecuteAsync(
                connection,
                $"""
                INSERT INTO dedup.digests AS d ({FileColumns}, machine_id, sha256)
                SELECT DISTINCT ON (i.device, i.inode) {Columns("i")}, $1, i.sha256
                FROM dedup_incoming i
                WHERE EXISTS (SELECT 1 FROM dedup.files f WHERE f.machine_id = $1 AND {SameStamp("f", "i")})
                ON CONFLICT (machine_id, device, inode) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
                  ctime_ns = excluded.ctime_ns, sha256 = excluded.sha256
                """,
                token,
                id.Value).ConfigureAwait(false);
            await transaction.CommitAsync(token).ConfigureAwait(false);
            return recorded;
        }, cancellationToken);
    }
}
