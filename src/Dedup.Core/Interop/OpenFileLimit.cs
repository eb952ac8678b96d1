namespace Dedup.Core.Interop;

/// <summary>The process's open-file limit (soft <c>RLIMIT_NOFILE</c>), read once, after the runtime has raised it to the hard limit.</summary>
internal static unsafe class OpenFileLimit
{
    /// <summary>The limit on Linux; elsewhere, and when it cannot be read, a value that bounds nothing here.</summary>
    public static int Current { get; } = Read();

    private static int Read()
    {
        if (!OperatingSystem.IsLinux())
        {
            return 1 << 20;
        }

        RLimit limit;
        return Libc.GetRLimit(Libc.RLIMIT_NOFILE, &limit) != 0 ? 256 : (int)Math.Min(int.MaxValue, limit.Current);
    }
}
