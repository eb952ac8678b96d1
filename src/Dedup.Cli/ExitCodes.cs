namespace Dedup.Cli;

/// <summary>The process exit codes, a contract for scripts.</summary>
internal static class ExitCodes
{
    public const int Success = 0;
    public const int CompletedWithErrors = 1;
    public const int BadUsage = 2;
    public const int Cancelled = 130;
}
