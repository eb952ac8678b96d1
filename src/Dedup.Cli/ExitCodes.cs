namespace Dedup.Cli;

/// <summary>The process exit codes, a contract for scripts (docs/dedup.1, EXIT STATUS).</summary>
internal static class ExitCodes
{
    public const int Success = 0;
    public const int CompletedWithErrors = 1;
    public const int BadUsage = 2;

    // What a script may tell apart from file errors (#37): neither is an error of a file, and 1 wins over both.

    /// <summary>Completed, but groups that no <c>--keep</c> rule decided were left alone (and no file had an error).</summary>
    public const int Undecided = 3;

    /// <summary>The user answered no at the confirmation prompt: nothing was changed.</summary>
    public const int Declined = 4;

    /// <summary>Interrupted by SIGINT (Ctrl-C): 128 + 2, as a shell reports a process the signal ended.</summary>
    public const int Cancelled = 130;

    /// <summary>Interrupted by SIGTERM: 128 + 15.</summary>
    public const int Terminated = 143;

    /// <summary>1 when anything failed, else 3 when groups were left undecided, else 0.</summary>
    public static int Completed(bool errors, bool undecided) => errors ? CompletedWithErrors : undecided ? Undecided : Success;
}
