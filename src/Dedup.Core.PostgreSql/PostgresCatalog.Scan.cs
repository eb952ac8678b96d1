using Dedup.Core.Caching;
using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Npgsql;

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

            // One digest per identity (the first given wins), sorted by identity: the rows then go into the primary key
            // in its order.
            var unique = new Dictionary<FileIdentity, CatalogDigest>();
            foreach (CatalogDigest digest in digests)
            {
                ArgumentNullException.ThrowIfNull(digest, nameof(digests));
                unique.TryAdd(digest.Stamp.Identity, digest);
            }

            var sorted = unique.Values.ToArray();
            Array.Sort(sorted, static (a, b) => KeyOrder(a.Stamp.Identity, b.Stamp.Identity));

            // The hash of the stamp check spilled to disk under the default 4 MB (measured: 20 MB of temporary files at
            // 250k digests).
            await ExecuteAsync(connection, $"SET LOCAL work_mem = '64MB'; CREATE TEMP TABLE dedup_incoming ({FileColumnDefinitions}, sha256 bytea) ON COMMIT DROP", token).ConfigureAwait(false);
            var copy = await BinaryCopyWriter.BeginAsync(connection, $"COPY dedup_incoming ({FileColumns}, sha256) FROM STDIN (FORMAT BINARY)", token).ConfigureAwait(false);
            await using (copy.ConfigureAwait(false))
            {
                foreach (CatalogDigest digest in sorted)
                {
                    await copy.StartRowAsync(6, CatalogWriter.StampBytes + CatalogWriter.FieldBytes(CatalogDigest.Sha256Length), token).ConfigureAwait(false);
                    CatalogWriter.WriteStamp(copy, digest.Stamp);
                    copy.WriteBytes(digest.Sha256.Span);
                }

                await copy.CompleteAsync(token).ConfigureAwait(false);
            }

            await ExecuteAsync(connection, "ANALYZE dedup_incoming", token).ConfigureAwait(false);
            // A digest given again for an identity replaces the stored one (only when the new one will be stored: its
            // stamp is a file row's): deleted, then inserted. Not INSERT … ON CONFLICT DO UPDATE: its speculative
            // insertion probed and locked the key of every row (measured at 250k digests under load ~11: 5.4 s against
            // 3.0 s for the plain insert).
            await ExecuteAsync(
                connection,
                $"""
                DELETE FROM dedup.digests d USING dedup_incoming i
                WHERE d.machine_id = $1 AND d.device = i.device AND d.inode = i.inode
                  AND EXISTS (SELECT 1 FROM dedup.files f WHERE f.machine_id = $1 AND {SameStamp("f", "i")})
                """,
                token,
                id.Value).ConfigureAwait(false);
            long recorded = await ExecuteAsync(
                connection,
                $"""
                INSERT INTO dedup.digests ({FileColumns}, machine_id, sha256)
                SELECT {Columns("i")}, $1, i.sha256
                FROM dedup_incoming i
                WHERE EXISTS (SELECT 1 FROM dedup.files f WHERE f.machine_id = $1 AND {SameStamp("f", "i")})
                """,
                token,
                id.Value).ConfigureAwait(false);
            await transaction.CommitAsync(token).ConfigureAwait(false);
            return recorded;
        }, cancellationToken);
    }

    /// <summary>The order of <c>(device, inode)</c> in the primary key: signed, as the bigint columns hold them.</summary>
    private static int KeyOrder(FileIdentity a, FileIdentity b)
    {
        int byDevice = unchecked((long)a.Device).CompareTo(unchecked((long)b.Device));
        return byDevice != 0 ? byDevice : unchecked((long)a.FileId).CompareTo(unchecked((long)b.FileId));
    }
}
