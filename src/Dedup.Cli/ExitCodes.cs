namespace Dedup.Cli;

/// <summary>The process exit codes, a contract for scripts.</summary>
internal static class ExitCodes
{
    public const int Success = 0;
    public const int CompletedWithErrors = 1;
    public const int BadUsage = 2;
    /// <summary>Interrupted by SIGINT (Ctrl-C): 128 + 2, as a shell reports a process the signal ended.</summary>
    public const int Cancelled = 130;

    /// <summary>Interrupted by SIGTERM: 128 + 15.</summary>
    public const int Terminated = 143;
}
