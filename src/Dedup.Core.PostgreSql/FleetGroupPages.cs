using System.Buffers.Binary;
using System.Globalization;
using Dedup.Core.Catalog;
using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// Reads the fleet's groups across machines in pages, largest waste first, by keyset: each page asks the server for
/// the next groups after the last one read (waste, size, SHA-256, all descending), so no more than a page of groups
/// is ever sent, or held by the client. All pages read one snapshot (a repeatable-read, read-only
/// transaction held while the caller enumerates), so a scan committing meanwhile cannot move a group across a page
/// boundary (listed twice or never).
/// </summary>
internal sealed class FleetGroupPages : IAsyncDisposable
{
    /// <summary>Groups in the first page: small, so the first groups come after one aggregation.</summary>
    public const int FirstPageSize = 256;

    /// <summary>Pages double up to this many groups: each page aggregates the digests again, so fewer, larger pages.</summary>
    public const int MaxPageSize = 8192;

    // The groups: digests of named machines by (size, sha256), those spanning two machines. A page's groups are then
    // joined to their digests and file rows; orphan digests (no machines row) come back too, to be named. Waste is at
    // least the size for a group of two, so a later page needs only the digests no larger than the last waste read.
    private static string PageSql(bool after, bool oneMachine) => $"""
        WITH page AS (
          SELECT d.size, d.sha256, d.size * (count(*) - 1) AS wasted
          FROM dedup.digests d
          WHERE d.machine_id IN (SELECT id FROM dedup.machines){(after ? " AND d.size <= $2" : string.Empty)}
          GROUP BY d.size, d.sha256
          HAVING min(d.machine_id) <> max(d.machine_id){(oneMachine ? " AND bool_or(d.machine_id = $5)" : string.Empty)}
            {(after ? "AND (d.size * (count(*) - 1), d.size, d.sha256) < ($2, $3, $4)" : string.Empty)}
          ORDER BY 3 DESC, 1 DESC, 2 DESC
          LIMIT $1)
        SELECT p.wasted, {PostgresCatalog.Columns("g")}, p.sha256, g.machine_id, f.path
        FROM page p
        JOIN dedup.digests g ON g.size = p.size AND g.sha256 = p.sha256
        LEFT JOIN dedup.files f ON f.machine_id = g.machine_id AND {PostgresCatalog.SameStamp("f", "g")}
        """;

    private readonly NpgsqlConnection _connection;
    private readonly NpgsqlTransaction _transaction;
    private readonly Dictionary<int, string> _names;
    private readonly int? _machine;
    private readonly FleetSkips _skips = new();
    private int _pageSize;
    private (long Wasted, long Size, byte[] Sha)? _last;
    private bool _done;

    private FleetGroupPages(NpgsqlConnection connection, NpgsqlTransaction transaction, Dictionary<int, string> names, int? machine, int pageSize)
    {
        _connection = connection;
        _transaction = transaction;
        _names = names;
        _machine = machine;
        _pageSize = pageSize;
    }

    /// <summary>What was left out so far, named once per kind and machine; complete after the last page.</summary>
    public FleetSkips Skips => _skips;

    /// <summary>
    /// Starts the snapshot on <paramref name="connection"/> (owned from here on); <see langword="null"/> when
    /// <paramref name="machine"/> names no machine of the catalog (nothing to list).
    /// </summary>
    public static async Task<FleetGroupPages?> OpenAsync(NpgsqlConnection connection, string? machine, int firstPageSize, CancellationToken cancellationToken)
    {
        var transaction = await connection.BeginTransactionAsync(System.Data.IsolationLevel.RepeatableRead, cancellationToken).ConfigureAwait(false);
        try
        {
            // The aggregation hashes every digest of the catalog once per page: in memory where it fits.
            await PostgresCatalog.ExecuteAsync(connection, "SET TRANSACTION READ ONLY; SET LOCAL work_mem = '128MB'", cancellationToken).ConfigureAwait(false);
            var names = new Dictionary<int, string>();
            int? id = null;
            await using (var command = new NpgsqlCommand("SELECT id, name FROM dedup.machines", connection))
            await using (var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
            {
                while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
                {
                    names[reader.GetInt32(0)] = reader.GetString(1);
                    if (machine is not null && string.Equals(reader.GetString(1), machine, StringComparison.Ordinal))
                    {
                        id = reader.GetInt32(0);
                    }
                }
            }

            if (machine is not null && id is null)
            {
                await transaction.DisposeAsync().ConfigureAwait(false);
                return null;
            }

            return new FleetGroupPages(connection, transaction, names, id, firstPageSize);
        }
        catch
        {
            await transaction.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>The next page of groups, in order; empty after the last.</summary>
    public async Task<IReadOnlyList<FleetGroup>> NextPageAsync(CancellationToken cancellationToken)
    {
        if (_done)
        {
            return [];
        }

        var groups = new Dictionary<(long Size, UInt128 High, UInt128 Low), PageGroup>();
        byte[] sha = new byte[CatalogDigest.Sha256Length];
        await using (var command = new NpgsqlCommand(PageSql(_last is not null, _machine is not null), _connection))
        {
            // All five typed, always: the SQL of a first page or of the whole fleet leaves some unused.
            command.Parameters.Add(new NpgsqlParameter { NpgsqlDbType = NpgsqlTypes.NpgsqlDbType.Integer, Value = _pageSize });
            command.Parameters.Add(new NpgsqlParameter { NpgsqlDbType = NpgsqlTypes.NpgsqlDbType.Bigint, Value = _last?.Wasted ?? (object)DBNull.Value });
            command.Parameters.Add(new NpgsqlParameter { NpgsqlDbType = NpgsqlTypes.NpgsqlDbType.Bigint, Value = _last?.Size ?? (object)DBNull.Value });
            command.Parameters.Add(new NpgsqlParameter { NpgsqlDbType = NpgsqlTypes.NpgsqlDbType.Bytea, Value = _last?.Sha ?? (object)DBNull.Value });
            command.Parameters.Add(new NpgsqlParameter { NpgsqlDbType = NpgsqlTypes.NpgsqlDbType.Integer, Value = _machine ?? (object)DBNull.Value });
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                int length = (int)reader.GetBytes(6, 0, sha, 0, sha.Length);
                var key = (reader.GetInt64(1), BinaryPrimitives.ReadUInt128BigEndian(sha), BinaryPrimitives.ReadUInt128BigEndian(sha.AsSpan(16)));
                if (!groups.TryGetValue(key, out var group))
                {
                    group = new PageGroup(reader.GetInt64(0), reader.GetInt64(1), sha.AsSpan(0, length).ToArray());
                    groups.Add(key, group);
                }

                var stamp = PostgresCatalog.ReadStamp(reader, 1);
                int machineId = reader.GetInt32(7);
                if (!_names.TryGetValue(machineId, out var name))
                {
                    _skips.Orphan(machineId);
                }
                else if (reader.IsDBNull(8))
                {
                    _skips.DigestWithoutFile(name);
                }
                else if (reader.GetFieldValue<byte[]>(8) is { Length: 0 })
                {
                    _skips.EmptyPath(name);
                }
                else
                {
                    group.Files.Add(new CatalogMatch(name, reader.GetFieldValue<byte[]>(8), stamp));
                }
            }
        }

        var ordered = groups.Values
            .OrderByDescending(group => group.Wasted).ThenByDescending(group => group.Size)
            .ThenByDescending(group => group.Sha, ByteOrder.Instance)
            .ToList();
        if (ordered.Count < _pageSize)
        {
            _done = true;
        }

        if (ordered.Count > 0)
        {
            _last = (ordered[^1].Wasted, ordered[^1].Size, ordered[^1].Sha);
        }

        _pageSize = Math.Min(_pageSize * 2, Math.Max(_pageSize, MaxPageSize));
        var page = new List<FleetGroup>(ordered.Count);
        foreach (var group in ordered)
        {
            if (group.ToFleetGroup() is { } kept)
            {
                page.Add(kept);
            }
            else
            {
                _skips.Group();
            }
        }

        return page;
    }

    public async ValueTask DisposeAsync()
    {
        // Read only: nothing to commit; disposing rolls the snapshot back.
        await _transaction.DisposeAsync().ConfigureAwait(false);
        await _connection.DisposeAsync().ConfigureAwait(false);
    }

    private sealed class PageGroup(long wasted, long size, byte[] sha)
    {
        public long Wasted { get; } = wasted;

        public long Size { get; } = size;

        public byte[] Sha { get; } = sha;

        public List<CatalogMatch> Files { get; } = [];

        /// <summary>The group as listed, or <see langword="null"/> when its rows left out leave no copies on two machines.</summary>
        public FleetGroup? ToFleetGroup()
        {
            var copies = Files.Select(file => (file.Machine, file.Stamp.Identity)).Distinct().Count();
            if (copies < 2 || Files.TrueForAll(file => string.Equals(file.Machine, Files[0].Machine, StringComparison.Ordinal)))
            {
                return null;
            }

            Files.Sort(CatalogMatchOrder.Instance);
            return new FleetGroup { Length = Size, Sha256 = Sha, WastedBytes = Size * (copies - 1), Files = Files };
        }
    }

    /// <summary>Unsigned byte order, as the server sorts <c>bytea</c>.</summary>
    private sealed class ByteOrder : IComparer<byte[]>
    {
        public static readonly ByteOrder Instance = new();

        public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
    }
}

/// <summary>Rows a fleet listing left out, counted by kind and machine and named once each at the end.</summary>
internal sealed class FleetSkips
{
    private readonly SortedDictionary<int, long> _orphans = [];
    private readonly SortedDictionary<string, long> _withoutFile = new(StringComparer.Ordinal);
    private readonly SortedDictionary<string, long> _emptyPaths = new(StringComparer.Ordinal);
    private long _groups;

    public void Orphan(int machineId) => _orphans[machineId] = _orphans.GetValueOrDefault(machineId) + 1;

    public void DigestWithoutFile(string machine) => _withoutFile[machine] = _withoutFile.GetValueOrDefault(machine) + 1;

    public void EmptyPath(string machine) => _emptyPaths[machine] = _emptyPaths.GetValueOrDefault(machine) + 1;

    public void Group() => _groups++;

    /// <summary>One message per machine id or name and kind, then the groups dropped for them.</summary>
    public IEnumerable<string> Messages()
    {
        foreach (var (id, rows) in _orphans)
        {
            yield return Invariant($"The catalog's {Rows(rows)} of machine id {id} in these groups {Were(rows)} left out: ")
                + CatalogOrphans.Advice(id);
        }

        foreach (var (machine, rows) in _withoutFile)
        {
            yield return Invariant($"{Digests(rows)} of machine '{machine}' in these groups {Were(rows)} left out: no file row of the machine has {(rows == 1 ? "its" : "their")} stamp (a row changed by hand?); the machine's next scan drops {(rows == 1 ? "it" : "them")}.");
        }

        foreach (var (machine, rows) in _emptyPaths)
        {
            yield return Invariant($"The catalog's {Rows(rows)} of machine '{machine}' with an empty path {Were(rows)} left out (a row written by hand?); the machine's next scan replaces {(rows == 1 ? "it" : "them")}.");
        }

        if (_groups > 0)
        {
            yield return Invariant($"{(_groups == 1 ? "1 group was" : $"{_groups} groups were")} left out: without the rows above, {(_groups == 1 ? "it holds" : "they hold")} no copies on two machines.");
        }
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);

    private static string Rows(long rows) => rows == 1 ? "1 row" : Invariant($"{rows} rows");

    private static string Digests(long rows) => rows == 1 ? "1 digest" : Invariant($"{rows} digests");

    private static string Were(long rows) => rows == 1 ? "was" : "were";
}
