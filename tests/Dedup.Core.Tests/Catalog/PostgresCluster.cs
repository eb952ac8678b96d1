using System.Globalization;
using Dedup.Core.Tests.Infrastructure;
using Npgsql;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A real PostgreSQL server of its own, in a temporary folder: initdb, then pg_ctl start with only a Unix socket
/// (no TCP port to collide with), password authentication (so a wrong password is refused), stopped and deleted on
/// dispose. initdb refuses to run as root, so as root the cluster runs as the <c>postgres</c> user (runuser).
/// Also compiled into benchmarks/catalog (with <see cref="TempTree"/> and <see cref="ProcessRunner"/>).
/// </summary>
internal sealed class PostgresCluster : IDisposable
{
    public const string Password = "dedup-test-secret";
    private const int Port = 5432;
    private readonly string _bin;
    private readonly bool _asPostgres;
    private readonly TempTree _folder;
    private int _databases;
    private string _options = string.Empty;

    private PostgresCluster(string bin, TempTree folder, bool asPostgres)
    {
        _bin = bin;
        _folder = folder;
        _asPostgres = asPostgres;
    }

    /// <summary>The temporary folder: data/, the socket and the server log.</summary>
    public string Folder => _folder.Root;

    public string DataDirectory => Path.Combine(Folder, "data");

    /// <summary>The folder of initdb and pg_ctl (DEDUP_PG_BIN, or Debian's newest /usr/lib/postgresql/N/bin), or null.</summary>
    public static string? FindBinDirectory()
    {
        var configured = Environment.GetEnvironmentVariable("DEDUP_PG_BIN");
        if (!string.IsNullOrEmpty(configured))
        {
            return HasServer(configured) ? configured : null;
        }

        const string debian = "/usr/lib/postgresql";
        if (!Directory.Exists(debian))
        {
            return null;
        }

        return Directory.GetDirectories(debian)
            .Select(version => (Version: int.TryParse(Path.GetFileName(version), NumberStyles.None, CultureInfo.InvariantCulture, out int n) ? n : -1, Bin: Path.Combine(version, "bin")))
            .Where(entry => entry.Version > 0 && HasServer(entry.Bin))
            .OrderByDescending(entry => entry.Version)
            .Select(entry => entry.Bin)
            .FirstOrDefault();
    }

    /// <summary>Why no cluster can be started here, or null.</summary>
    public static string? MissingReason()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "Needs Linux (the tests start Debian's PostgreSQL server).";
        }

        return FindBinDirectory() is null
            ? "PostgreSQL server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/N/bin or DEDUP_PG_BIN: apt-get install postgresql."
            : null;
    }

    /// <summary>Initialises and starts a cluster; throws with the tool's error output (and the server's log) when that fails.</summary>
    /// <param name="durable">false: fsync off (tests); true: the server's defaults (benchmarks).</param>
    /// <param name="settings">More server options, e.g. "-c shared_buffers=2GB".</param>
    public static PostgresCluster Start(bool durable = false, string settings = "")
    {
        string bin = FindBinDirectory() ?? throw new InvalidOperationException(MissingReason());
        bool asPostgres = Environment.IsPrivilegedProcess;
        // Under /tmp, not TMPDIR: the postgres user must be able to reach it, and a Unix socket's path is limited to
        // 107 bytes.
        var cluster = new PostgresCluster(bin, new TempTree("/tmp"), asPostgres);
        string folder = cluster.Folder;
        try
        {
            File.WriteAllText(Path.Combine(folder, "pwfile"), Password + "\n");
            if (asPostgres)
            {
                ProcessRunner.RunChecked("chown", "-R", "postgres:postgres", folder);
            }

            cluster.RunServerTool("initdb", ["-D", cluster.DataDirectory, "-U", "postgres", "--auth=scram-sha-256", "--pwfile", Path.Combine(folder, "pwfile"), "-E", "UTF8", "--locale=C"]);
            string options = $"-c listen_addresses='' -k {folder} -p {Port} -c max_connections=100" + (durable ? string.Empty : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off") + " " + settings;
            string log = Path.Combine(folder, "server.log");
            cluster._options = options;
            try
            {
                cluster.RunServerTool("pg_ctl", ["-D", cluster.DataDirectory, "-l", log, "-o", options, "-w", "-t", "60", "start"]);
            }
            catch (InvalidOperationException error) when (File.Exists(log))
            {
                // pg_ctl only says "Examine the log output": the reason is in the server's log, deleted below.
                throw new InvalidOperationException($"{error.Message}\n{File.ReadAllText(log)}", error);
            }
            return cluster;
        }
        catch
        {
            cluster.Dispose();
            throw;
        }
    }

    /// <summary>A connection string to <paramref name="database"/> as the superuser.</summary>
    public string ConnectionString(string database = "postgres", string? password = Password) =>
        new NpgsqlConnectionStringBuilder { Host = Folder, Port = Port, Username = "postgres", Password = password, Database = database, Pooling = true }.ConnectionString;

    /// <summary>Creates an empty database with a unique name and returns a connection string to it.</summary>
    public string CreateDatabase(string prefix)
    {
        string name = $"{prefix.ToLowerInvariant()}_{Interlocked.Increment(ref _databases)}";
        using var connection = new NpgsqlConnection(ConnectionString());
        connection.Open();
        using var command = new NpgsqlCommand($"CREATE DATABASE \"{name}\"", connection);
        command.ExecuteNonQuery();
        return ConnectionString(name);
    }

    /// <summary>Stops the server now (immediate shutdown: connections are cut).</summary>
    public void Stop()
    {
        if (File.Exists(Path.Combine(DataDirectory, "postmaster.pid")))
        {
            RunServerTool("pg_ctl", ["-D", DataDirectory, "-m", "immediate", "-w", "stop"]);
        }
    }

    /// <summary>Starts the server again after <see cref="Stop"/>, with the options it first started with.</summary>
    public void StartAgain() =>
        RunServerTool("pg_ctl", ["-D", DataDirectory, "-l", Path.Combine(Folder, "server.log"), "-o", _options, "-w", "-t", "60", "start"]);

    public void Dispose()
    {
        try
        {
            Stop();
        }
        finally
        {
            NpgsqlConnection.ClearAllPools();
            _folder.Dispose();
        }
    }

    private static bool HasServer(string bin) => File.Exists(Path.Combine(bin, "initdb")) && File.Exists(Path.Combine(bin, "pg_ctl"));

    private void RunServerTool(string tool, string[] arguments)
    {
        string path = Path.Combine(_bin, tool);
        if (_asPostgres)
        {
            ProcessRunner.RunChecked("runuser", ["-u", "postgres", "--", path, .. arguments]);
        }
        else
        {
            ProcessRunner.RunChecked(path, arguments);
        }
    }
}
