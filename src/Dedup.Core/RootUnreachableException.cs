namespace Dedup.Core;

/// <summary>
/// A scan's root that the file system would not look up for another reason than "no such file": a folder on the way
/// is not readable by this user (<see cref="RootAccessDeniedException"/>), a loop of symbolic links, an I/O error, a
/// stale network mount. Thrown when a scan starts (<see cref="DuplicateFinder.CheckRoots"/>); a
/// <see cref="DirectoryNotFoundException"/>, so code that catches a missing root catches this too.
/// </summary>
public class RootUnreachableException : DirectoryNotFoundException
{
    /// <summary>Creates an exception with a default message.</summary>
    public RootUnreachableException()
        : this("A root folder cannot be reached.")
    {
    }

    /// <summary>Creates an exception with a message.</summary>
    /// <param name="message">What happened.</param>
    public RootUnreachableException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with a message and its cause.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public RootUnreachableException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <summary>The root that cannot be reached, as the finder holds it; empty when the exception was made without one.</summary>
    public string Root { get; internal init; } = string.Empty;

    /// <summary>The exception for a lookup of <paramref name="root"/> refused with <paramref name="reason"/> (the system's words).</summary>
    internal static RootUnreachableException Create(string root, bool accessDenied, string reason) => accessDenied
        ? new RootAccessDeniedException($"The root folder '{Paths.PathText.Escape(root)}' is not readable by this user (permission denied).") { Root = root }
        : new RootUnreachableException($"The root folder '{Paths.PathText.Escape(root)}' cannot be reached: {reason}.") { Root = root };
}

/// <summary>
/// A scan's root that this user may not reach: the file system refused to look it up (EACCES, EPERM; access denied
/// on Windows), usually because a folder on the way is not open to this user. Not a missing disk: run the scan as a
/// user who can read the folder, or grant this one access.
/// </summary>
public sealed class RootAccessDeniedException : RootUnreachableException
{
    /// <summary>Creates an exception with a default message.</summary>
    public RootAccessDeniedException()
        : base("A root folder is not readable by this user (permission denied).")
    {
    }

    /// <summary>Creates an exception with a message.</summary>
    /// <param name="message">What happened.</param>
    public RootAccessDeniedException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with a message and its cause.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public RootAccessDeniedException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }
}
