using Dedup.Core.Enumeration;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.EnumerationTests;

/// <summary>Case-insensitive globs (#36 point 9): off by default, ordinal and culture-free when set.</summary>
public sealed class GlobCaseTests
{
    [Fact]
    public async Task Ignoring_case_includes_and_excludes_whatever_the_letters_case()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(500, 31);
        var upper = tree.Write("a/IMG.JPG", content);
        var lower = tree.Write("b/x.jpg", content);
        var mixed = tree.Write("c/y.Jpg", content);
        tree.Write("TMP/t.jpg", content);
        tree.Write("d/z.png", content);

        async Task<List<string>> Run(Action<DuplicateFinderBuilder> configure)
        {
            var (groups, _) = await Scan.RunAsync(f => configure(f.AddRoot(tree.Root)));
            return Scan.Canonical(groups);
        }

        // Case-sensitive by default: only x.jpg and TMP/t.jpg match "*.jpg".
        Assert.Equal(Expect.Groups([lower, tree.PathOf("TMP/t.jpg")]), await Run(f => f.Include("*.jpg").IgnoreGlobCase(false)));
        Assert.Equal(Expect.Groups([upper, lower, mixed]), await Run(f => f.Include("*.jpg").Exclude("tmp").IgnoreGlobCase()));
        Assert.Equal(Expect.Groups([upper, lower]), await Run(f => f.Include("[i-x]*.JPG").Exclude("**/tmp/**").IgnoreGlobCase()));
        Assert.Equal(Expect.Groups([lower, mixed]), await Run(f => f.Include("[!i]*.jp?").Exclude("tmp").IgnoreGlobCase()));
    }

    [Fact]
    public async Task Scan_options_carry_the_setting_into_a_builder()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(300, 32);
        var upper = tree.Write("A.TXT", content);
        var lower = tree.Write("b.txt", content);
        var options = new ScanOptions { IgnoreGlobCase = true };
        options.Include.Add("*.txt");

        var builder = new DuplicateFinderBuilder().Configure(options).AddRoot(tree.Root);
        var (groups, _) = await Scan.RunAsync(builder.Build());

        Assert.True(builder.Options.IgnoreGlobCase);
        Assert.Equal(Expect.Groups([upper, lower]), Scan.Canonical(groups));
    }

    [Theory]
    [InlineData("*.jpg", "IMG.JPG", true)]
    [InlineData("img.jpg", "IMG.JPG", true)]
    [InlineData("sub/*.JPG", "SUB/a.jpg", true)]
    [InlineData("[a-c]", "B", true)]
    [InlineData("[A-C]", "b", true)]
    [InlineData("[!a-c]", "B", false)]
    [InlineData("[!a-c]", "d", true)]
    [InlineData("été.*", "ÉTÉ.txt", true)] // a one-to-one fold beyond ASCII
    [InlineData("σ", "Σ", true)]
    [InlineData("straße", "STRASSE", false)] // a fold that changes length is not made
    [InlineData("e\u0301", "\u00e9", false)] // nor is a name normalized
    [InlineData("*.jpg", "a.png", false)]
    [InlineData("[!a]", "!", true)] // the '!' negates, it is not a member
    [InlineData("[a-]", "-", true)] // a trailing '-' is a member, not a range
    [InlineData("A/*", "a/b/c", false)] // '*' stops at '/'
    [InlineData("**/X.JPG", "a/b/x.jpg", true)]
    public void Matching_ignoring_case_is_ordinal(string glob, string path, bool matches)
    {
        Assert.Equal(matches, GlobPattern.Parse(glob, ignoreCase: true).IsMatch(path));
    }

    [Fact]
    public void Matching_is_case_sensitive_by_default()
    {
        Assert.False(GlobPattern.Parse("*.jpg").IsMatch("IMG.JPG"));
        Assert.False(GlobPattern.Parse("[a-c]").IsMatch("B"));
        Assert.False(new ScanOptions().IgnoreGlobCase);
    }
}
