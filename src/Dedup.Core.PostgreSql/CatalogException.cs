namespace Dedup.Core.PostgreSql;

/// <summary>What went wrong with the catalog, so a caller can tell a typo from an outage.</summary>
public enum CatalogErrorKind
{
    /// <summary>The connection string could not be parsed or lacks what the catalog needs.</summary>
    InvalidConnectionString,

    /// <summary>No server answered at the host and port (refused, unknown host, timeout).</summary>
    Unreachable,

    /// <summary>The server answered but refused the connection: wrong user or password, or no such database.</summary>
    Rejected,

    /// <summary>An open connection was lost during an operation (server shut down, backend terminated, network).</summary>
    ConnectionLost,

    /// <summary>The catalog's schema is newer than this library understands.</summary>
    SchemaTooNew,

    /// <summary>The server reported another error.</summary>
    ServerError,
}

/// <summary>
/// A failure of the PostgreSQL catalog. The message names the host, port and database, never the password.
/// </summary>
public sealed class CatalogException : Exception
{
    /// <summary>Creates an exception with a message.</summary>
    public CatalogException()
        : this(CatalogErrorKind.ServerError, "The dedup catalog failed.", null, null, null, null)
    {
    }

    /// <summary>Creates an exception with a message.</summary>
    /// <param name="message">What happened.</param>
    public CatalogException(string message)
        : this(CatalogErrorKind.ServerError, message, null, null, null, null)
    {
    }

    /// <summary>Creates an exception with a message and its cause.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public CatalogException(string message, Exception? innerException)
        : this(CatalogErrorKind.ServerError, message, null, null, null, innerException)
    {
    }

    internal CatalogException(CatalogErrorKind kind, string message, string? host, int? port, string? database, Exception? innerException)
        : base(message, innerException)
    {
        Kind = kind;
        Host = host;
        Port = port;
        Database = database;
    }

    /// <summary>What went wrong.</summary>
    public CatalogErrorKind Kind { get; }

    /// <summary>The server's host (or Unix socket folder) from the connection string, when it could be read.</summary>
    public string? Host { get; }

    /// <summary>The server's port, when the connection string could be read.</summary>
    public int? Port { get; }

    /// <summary>The database, when the connection string could be read.</summary>
    public string? Database { get; }
}
