using Dedup.Core.Paths;

namespace Dedup.Core.Reporting;

/// <summary>What went wrong with one path during a scan.</summary>
public enum ScanErrorKind
{
    /// <summary>Another kind of I/O error.</summary>
    IOError,

    /// <summary>Permission to read the file or folder was denied.</summary>
    AccessDenied,

    /// <summary>The entry vanished between being listed and being read.</summary>
    NotFound,

    /// <summary>The file changed (size, time or identity) between being listed and being read; it was left out.</summary>
    Changed,

    /// <summary>A symbolic link loop or a link to a folder already visited.</summary>
    SymbolicLinkLoop,

    /// <summary>The name cannot be represented or passed to the operating system.</summary>
    InvalidName,
}

/// <summary>
/// A problem with one path; the scan reports it and goes on. A record: two errors are equal when path, kind and
/// message are.
/// </summary>
public sealed record ScanError
{
    private readonly string _path = string.Empty;
    private readonly string _message = string.Empty;

    /// <summary>Creates an error record.</summary>
    /// <param name="path">The absolute path concerned.</param>
    /// <param name="kind">The kind of problem.</param>
    /// <param name="message">A human-readable reason.</param>
    public ScanError(string path, ScanErrorKind kind, string message)
    {
        Path = path;
        Kind = kind;
        Message = message;
    }

    /// <summary>
    /// The absolute path concerned, exactly (escape it with <see cref="PathText.Escape"/> to show it); empty for a
    /// problem of no path (rows of the scan's <see cref="Catalog.FileCatalog"/> it left out).
    /// </summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public string Path
    {
        get => _path;
        init => _path = value ?? throw new ArgumentNullException(nameof(Path));
    }

    /// <summary>The kind of problem.</summary>
    public ScanErrorKind Kind { get; init; }

    /// <summary>A human-readable reason, such as <c>Permission denied</c>.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public string Message
    {
        get => _message;
        init => _message = value ?? throw new ArgumentNullException(nameof(Message));
    }

    /// <summary>The path and the message, for people: the path escaped with <see cref="PathText.Escape"/>, the message with <see cref="PathText.EscapeMessage"/>.</summary>
    /// <returns>Such as <c>/data/x: Permission denied</c>; the message alone when there is no path.</returns>
    public override string ToString() => Path.Length == 0 ? PathText.EscapeMessage(Message) : $"{PathText.Escape(Path)}: {PathText.EscapeMessage(Message)}";
}
