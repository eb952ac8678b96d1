using Xunit;
using Xunit.Sdk;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// Shared skip logic: a test that needs Linux (inode identities, symbolic-link semantics, /proc), root, or
/// a tool as well is skipped with the reason when the machine lacks it, instead of passing without testing
/// anything. Tests that need only a tool use <see cref="RequiresToolFactAttribute"/>.
/// </summary>
internal static class PlatformRequirements
{
    public static string? SkipReason(bool requiresRoot, string? tool, string? tempFileSystem = null)
    {
        if (!OperatingSystem.IsLinux())
        {
            return "Needs Linux (real FIFOs, hard links, symbolic links and /proc).";
        }

        if (requiresRoot && !Environment.IsPrivilegedProcess)
        {
            return "Needs to run as root (to drop privileges to user nobody, or chattr +i).";
        }

        if (tool is not null && RequiresToolFactAttribute.FindOnPath(tool) is null && !CiRequirement.InCi)
        {
            return MissingTool(tool);
        }

        if (tempFileSystem is not null)
        {
            var temp = Path.GetTempPath();
            var found = MountTable.FileSystemTypeOf(temp);
            if (found != tempFileSystem)
            {
                return $"Needs the temp folder ({temp}) on {tempFileSystem}; it is on {found ?? "an unknown file system"}.";
            }
        }

        return null;
    }

    /// <summary>In CI, the failure for a missing tool once the platform requirements are met (see <see cref="CiRequirement"/>).</summary>
    public static string? CiFailure(bool requiresRoot, string? tool, string? tempFileSystem) =>
        tool is not null && RequiresToolFactAttribute.FindOnPath(tool) is null && SkipReason(requiresRoot, tool: null, tempFileSystem) is null
            ? CiRequirement.FailureFor(MissingTool(tool))
            : null;

    private static string MissingTool(string tool) => $"{tool} not installed (not found on PATH).";
}

/// <summary>
/// A fact that runs only on Linux (and, if asked, as root, with a given tool, or with the temp folder on a given
/// file system); otherwise skipped with the reason.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
[XunitTestCaseDiscoverer("Dedup.Core.Tests.Infrastructure.RequirementFactDiscoverer", ThisTestAssembly.Name)]
public sealed class LinuxFactAttribute : FactAttribute, IRequirementFact
{
    private string? _skip;

    /// <summary>Whether the test must run as root.</summary>
    public bool RequiresRoot { get; set; }

    /// <summary>A command that must be on PATH.</summary>
    public string? Tool { get; set; }

    /// <summary>The file system type (as in /proc/self/mounts, e.g. "ext4") the temp folder must be on.</summary>
    public string? TempFileSystem { get; set; }

    public override string? Skip
    {
        get => _skip ?? PlatformRequirements.SkipReason(RequiresRoot, Tool, TempFileSystem);
        set => _skip = value;
    }

    string? IRequirementFact.CiFailure => _skip is null ? PlatformRequirements.CiFailure(RequiresRoot, Tool, TempFileSystem) : null;
}

/// <summary>A theory that runs only on Linux; otherwise skipped with the reason.</summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class LinuxTheoryAttribute : TheoryAttribute
{
    private string? _skip;

    /// <summary>Whether the test must run as root.</summary>
    public bool RequiresRoot { get; set; }

    public override string? Skip
    {
        get => _skip ?? PlatformRequirements.SkipReason(RequiresRoot, tool: null);
        set => _skip = value;
    }
}
