using Dedup.Core.Tests.Infrastructure;
using System.Text.RegularExpressions;

namespace Dedup.Core.Tests.Architecture;

/// <summary>
/// The scan core (<c>Scanning/</c>) knows no feature or mode by name: the cache, the catalog, folder mode and media
/// mode plug into it through <c>Scanning/Features/ScanFeature</c> and <c>ICompareStage</c>, composed in
/// <c>ScanComposition</c>. A reference from Scanning to one of them (a <c>using</c>, a qualified name, a cref) brings
/// the cycles back. Checked on the sources.
/// </summary>
public sealed partial class ScanLayeringTests
{
    [Fact]
    public void Scanning_names_nothing_from_the_caching_catalog_folders_or_media_layers()
    {
        var folder = Path.Combine(RepositoryFiles.Root, "src", "Dedup.Core", "Scanning");
        var files = Directory.EnumerateFiles(folder, "*.cs", SearchOption.AllDirectories).ToList();
        Assert.NotEmpty(files);
        var problems = new List<string>();
        foreach (var file in files)
        {
            var lines = File.ReadAllLines(file);
            for (var i = 0; i < lines.Length; i++)
            {
                if (Reference().Match(lines[i]) is { Success: true } match)
                {
                    problems.Add($"{Path.GetRelativePath(folder, file)}:{i + 1}: {match.Value}");
                }
            }
        }

        Assert.True(problems.Count == 0, string.Join("\n", problems));
    }

    [GeneratedRegex(@"using\s+Dedup\.Core\.(Caching|Catalog|Folders|Media)\b|\b(Caching|Catalog|Folders|Media)\.[A-Z]\w*")]
    private static partial Regex Reference();
}
