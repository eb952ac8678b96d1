using Xunit;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>A fact that runs only on macOS; elsewhere it is reported as skipped with the reason, never as passed.</summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class MacOSFactAttribute : FactAttribute
{
    private string? _skip;

    public override string? Skip
    {
        get => _skip ?? (OperatingSystem.IsMacOS() ? null : "Needs macOS (the Trash through NSFileManager, Darwin file identities).");
        set => _skip = value;
    }
}
