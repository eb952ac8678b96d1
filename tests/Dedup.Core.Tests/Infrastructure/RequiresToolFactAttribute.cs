using Xunit;
using Xunit.Sdk;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// A <see cref="FactAttribute"/> that is reported as skipped, not passed, when any of the named
/// command-line tools cannot be found on PATH (xunit 2 has no runtime skip without extra packages); in CI it is
/// reported as failed (see <see cref="CiRequirement"/>).
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
[XunitTestCaseDiscoverer("Dedup.Core.Tests.Infrastructure.RequirementFactDiscoverer", ThisTestAssembly.Name)]
public sealed class RequiresToolFactAttribute : FactAttribute, IRequirementFact
{
    public RequiresToolFactAttribute(params string[] tools)
    {
        ArgumentNullException.ThrowIfNull(tools);
        Tools = tools;
        string[] missing = tools.Where(tool => FindOnPath(tool) is null).ToArray();
        if (missing.Length > 0)
        {
            var reason = $"{string.Join(", ", missing)} not installed (not found on PATH).";
            CiFailure = CiRequirement.FailureFor(reason);
            Skip = CiFailure is null ? reason : null;
        }
    }

    public string? CiFailure { get; }

    /// <summary>The tools this test needs.</summary>
    public IReadOnlyList<string> Tools { get; }

    /// <summary>Returns the full path of <paramref name="tool"/> as the OS would resolve it from PATH, or null.</summary>
    public static string? FindOnPath(string tool)
    {
        ArgumentException.ThrowIfNullOrEmpty(tool);
        if (tool.Contains(Path.DirectorySeparatorChar, StringComparison.Ordinal) || tool.Contains(Path.AltDirectorySeparatorChar, StringComparison.Ordinal))
        {
            return IsExecutable(tool) ? Path.GetFullPath(tool) : null;
        }

        string[] extensions = OperatingSystem.IsWindows()
            ? [string.Empty, .. (Environment.GetEnvironmentVariable("PATHEXT") ?? ".EXE;.CMD;.BAT").Split(';', StringSplitOptions.RemoveEmptyEntries)]
            : [string.Empty];
        string[] directories = (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries);
        foreach (string directory in directories)
        {
            foreach (string extension in extensions)
            {
                string candidate = Path.Combine(directory.Trim('"'), tool + extension);
                if (IsExecutable(candidate))
                {
                    return candidate;
                }
            }
        }

        return null;
    }

    private static bool IsExecutable(string path)
    {
        if (!File.Exists(path))
        {
            return false;
        }

        if (OperatingSystem.IsWindows())
        {
            return true;
        }

        const UnixFileMode anyExecute = UnixFileMode.UserExecute | UnixFileMode.GroupExecute | UnixFileMode.OtherExecute;
        return (File.GetUnixFileMode(path) & anyExecute) != 0;
    }
}
