using Xunit;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// A fact that runs only on Windows (volume serials, the seek-penalty ioctl, the Recycle Bin, reparse points);
/// elsewhere it is reported as skipped with the reason, never as passed.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class WindowsFactAttribute : FactAttribute
{
    private string? _skip;

    public override string? Skip
    {
        get => _skip ?? (OperatingSystem.IsWindows() ? null : "Needs Windows (volume serials, drive types, seek penalty, Recycle Bin, reparse points, Win32 file identities).");
        set => _skip = value;
    }
}
