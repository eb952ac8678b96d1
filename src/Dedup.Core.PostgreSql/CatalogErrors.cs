using System.Net.Sockets;
using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// Turns Npgsql's and the server's failures into <see cref="CatalogException"/>s that name the server (host, port,
/// database) and never the password, which is also scrubbed from any message passed on.
/// </summary>
internal sealed class CatalogErrors
{
    private readonly string? _password;

    public CatalogErrors(string? host, int? port, string? database, string? password)
    {
        Host = host;
        Port = port;
        Database = database;
        _password = string.IsNullOrEmpty(password) ? null : password;
    }

    public string? Host { get; }

    public int? Port { get; }

    public string? Database { get; }

    private string Where => $"the dedup catalog (host '{Host ?? "localhost"}', port {Port?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "5432"}, database '{Database ?? "(default)"}')";

    public static CatalogException InvalidConnectionString(string reason, Exception? inner) =>
        new(CatalogErrorKind.InvalidConnectionString, $"The dedup catalog's connection string is not valid: {reason}", null, null, null, inner);

    /// <summary>The catalog exception for <paramref name="error"/>, or null when it is not one to translate.</summary>
    /// <param name="error">What was thrown.</param>
    /// <param name="opened">Whether the connection had been opened (a failure after that is a lost connection).</param>
    /// <param name="operation">What the catalog was doing, for the message.</param>
    /// <param name="connectionBroken">Whether Npgsql had marked the connection broken when <paramref name="error"/> was thrown.</param>
    public CatalogException? Translate(Exception error, bool opened, string operation, bool connectionBroken)
    {
        switch (error)
        {
            case CatalogException:
            case OperationCanceledException:
                return null;
            case CatalogSchemaTooNewException tooNew:
                return Create(CatalogErrorKind.SchemaTooNew, $"Cannot use {Where}: {tooNew.Message}", error);
            case PostgresException postgres:
                return FromServer(postgres, opened, operation);
            case NpgsqlException npgsql:
                return Broken(opened, operation, Reason(npgsql), error);
            case SocketException or IOException or TimeoutException:
                return Broken(opened, operation, Scrub(error.Message), error);
            case InvalidOperationException when opened && connectionBroken:
                // Npgsql reports a use of a connection it found broken this way; any other one (the caller's own
                // sequence failing, say) is not the catalog's to rename.
                return Broken(opened, operation, Scrub(error.Message), error);
            default:
                return null;
        }
    }

    private CatalogException FromServer(PostgresException error, bool opened, string operation)
    {
        string state = error.SqlState;
        string text = $"{Scrub(error.MessageText)} (SQLSTATE {state})";
        if (state.StartsWith("28", StringComparison.Ordinal) || state == PostgresErrorCodes.InvalidCatalogName)
        {
            // 28xxx: invalid authorization (wrong password, no such role, refused by pg_hba); 3D000: no such database.
            return Create(CatalogErrorKind.Rejected, $"{Capitalized(Where)} refused the connection: {text}", error);
        }

        if (state.StartsWith("08", StringComparison.Ordinal) || state.StartsWith("57P", StringComparison.Ordinal))
        {
            // 08xxx: connection exceptions; 57P01-57P05: the backend was terminated or the server is shutting down.
            return Broken(opened, operation, text, error);
        }

        return Create(CatalogErrorKind.ServerError, $"{Capitalized(Where)} failed while {operation}: {text}", error);
    }

    /// <summary>No connection: <see cref="CatalogErrorKind.Unreachable"/> before it opened, <see cref="CatalogErrorKind.ConnectionLost"/> after.</summary>
    private CatalogException Broken(bool opened, string operation, string reason, Exception inner) =>
        opened
            ? Create(CatalogErrorKind.ConnectionLost, $"The connection to {Where} was lost while {operation}: {reason}", inner)
            : Create(CatalogErrorKind.Unreachable, $"Cannot connect to {Where}: {reason}", inner);

    private CatalogException Create(CatalogErrorKind kind, string message, Exception inner) =>
        new(kind, message, Host, Port, Database, inner);

    private string Reason(NpgsqlException error)
    {
        // Npgsql wraps the socket or stream error; the innermost message says what happened.
        Exception innermost = error;
        while (innermost.InnerException is not null)
        {
            innermost = innermost.InnerException;
        }

        return ReferenceEquals(innermost, error) ? Scrub(error.Message) : $"{Scrub(error.Message)} ({Scrub(innermost.Message)})";
    }

    private string Scrub(string message) =>
        _password is null ? message : message.Replace(_password, "********", StringComparison.Ordinal);

    private static string Capitalized(string text) => char.ToUpperInvariant(text[0]) + text[1..];
}
