using Dedup.Core.Tests.Infrastructure;
using System.Text.RegularExpressions;

namespace Dedup.Core.Tests.Architecture;

/// <summary>
/// Platform code lives in <c>.Linux.cs</c> / <c>.Windows.cs</c> / <c>.MacOS.cs</c> files, and each such file says so
/// to the platform analyzer (<c>[SupportedOSPlatform]</c>), so a call from shared code without a guard fails the build
/// (CA1416) instead of failing on the other system. Checked on the sources, next to the repository's solution file.
/// </summary>
public sealed partial class PlatformFileTests
{
    public static TheoryData<string, string> Suffixes => new()
    {
        { ".Linux.cs", "linux" },
        { ".Windows.cs", "windows" },
        { ".MacOS.cs", "macos" },
    };

    [Theory]
    [MemberData(nameof(Suffixes))]
    public void Every_platform_file_declares_its_platform_and_no_other(string suffix, string platform)
    {
        var files = Directory.EnumerateFiles(Path.Combine(RepositoryFiles.Root, "src"), "*" + suffix, SearchOption.AllDirectories)
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .ToList();
        Assert.NotEmpty(files);
        var problems = new List<string>();
        foreach (var file in files)
        {
            var platforms = Attribute().Matches(File.ReadAllText(file)).Select(m => m.Groups[1].Value).ToHashSet(StringComparer.OrdinalIgnoreCase);
            if (!platforms.Contains(platform))
            {
                problems.Add($"{Path.GetFileName(file)}: no [SupportedOSPlatform(\"{platform}\")]");
            }

            problems.AddRange(platforms.Where(p => !p.Equals(platform, StringComparison.OrdinalIgnoreCase)).Select(p => $"{Path.GetFileName(file)}: declares {p}"));
        }

        Assert.True(problems.Count == 0, string.Join("\n", problems));
    }

    [GeneratedRegex(@"SupportedOSPlatform(?:Guard)?\(""(\w+)""\)")]
    private static partial Regex Attribute();
}
