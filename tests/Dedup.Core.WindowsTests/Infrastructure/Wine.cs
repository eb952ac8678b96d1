using System.Runtime.InteropServices;

namespace Dedup.Core.WindowsTests.Infrastructure;

/// <summary>
/// Whether this Windows process runs under Wine (ntdll exports <c>wine_get_version</c> there and nowhere else), and the
/// skips for what Wine does not provide: each is reported as skipped with its reason, never as passed.
/// </summary>
internal static class Wine
{
    private static readonly Lazy<string?> s_version = new(ReadVersion);

    /// <summary>Wine's version ("8.0"), or <see langword="null"/> on Windows proper.</summary>
    public static string? Version => s_version.Value;

    public static bool IsRunning => Version is not null;

    /// <summary>The Unix user's home folder as a Windows path (Wine's <c>WINEHOMEDIR</c>, <c>\??\Z:\home\…</c>).</summary>
    public static string HomeFolder()
    {
        var home = Environment.GetEnvironmentVariable("WINEHOMEDIR") ?? throw new InvalidOperationException("WINEHOMEDIR is not set (not under Wine?)");
        return home.StartsWith(@"\??\", StringComparison.Ordinal) ? home[4..] : home;
    }

    /// <summary>Skips the calling test under Wine, saying what Wine lacks; on Windows proper the test runs.</summary>
    public static void SkipUnderWine(string whatWineLacks) =>
        Assert.SkipWhen(IsRunning, $"Wine {Version} does not provide {whatWineLacks}; runs on Windows proper only.");

    private static unsafe string? ReadVersion()
    {
        if (!OperatingSystem.IsWindows() || !NativeLibrary.TryLoad("ntdll.dll", out var ntdll))
        {
            return null;
        }

        if (!NativeLibrary.TryGetExport(ntdll, "wine_get_version", out var export))
        {
            return null;
        }

        var version = ((delegate* unmanaged<sbyte*>)export)();
        return version is null ? "(unknown version)" : new string(version);
    }
}
