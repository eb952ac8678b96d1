using Xunit;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>A fact that runs only on Windows; elsewhere it is reported as skipped with the reason, never as passed.</summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class WindowsFactAttribute : FactAttribute
{
    private string? _skip;

    public override string? Skip
    {
        get => _skip ?? (OperatingSystem.IsWindows() ? null : "Needs Windows (Recycle Bin, NTFS reparse points, Win32 file identities).");
        set => _skip = value;
    }
}
