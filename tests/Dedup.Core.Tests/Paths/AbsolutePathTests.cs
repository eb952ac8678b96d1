using System.Text;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Paths;

/// <summary>
/// <see cref="AbsolutePath"/> decides equality, hashing and order on its nodes; these tests check those
/// decisions against plain strings and against an independent name-by-name order.
/// </summary>
public sealed class AbsolutePathTests
{
    private static readonly string[] Names = ["a", "b", "a-b", "a.b", "ab", "A", "é", "e\u0301", "z", "a b", "日本", "😀", "a\nb"];

    [Theory]
    [InlineData("/")]
    [InlineData("/a")]
    [InlineData("/a/b/c.txt")]
    [InlineData("/tmp/with space/ü/😀 emoji")]
    [InlineData("/x/new\nline")]
    public void Parse_and_ToString_round_trip(string text)
    {
        var path = AbsolutePath.Parse(text);

        Assert.Equal(text, path.ToString());
        Assert.Equal(text.Length, path.Length);
        Assert.Equal(text.Count(c => c == '/') - (text == "/" ? 1 : 0), path.Depth);
        var builder = new StringBuilder("prefix:");
        path.AppendTo(builder);
        Assert.Equal("prefix:" + text, builder.ToString());
    }

    [Theory]
    [InlineData("/a//b/./c/../d/", "/a/b/d")]
    [InlineData("/a/b/", "/a/b")]
    [InlineData("//", "/")]
    public void Parse_normalizes(string text, string expected)
    {
        Assert.Equal(expected, AbsolutePath.Parse(text).ToString());
        Assert.Equal(AbsolutePath.Parse(expected), AbsolutePath.Parse(text));
    }

    [Fact]
    public void A_relative_path_is_resolved_against_the_current_folder()
    {
        Assert.Equal(Path.Combine(Environment.CurrentDirectory, "x", "y"), AbsolutePath.Parse("x/y").ToString());
    }

    [Fact]
    public void Parse_rejects_null_and_empty()
    {
        Assert.Throws<ArgumentNullException>(() => AbsolutePath.Parse(null!));
        Assert.Throws<ArgumentException>(() => AbsolutePath.Parse(string.Empty));
    }

    [Fact]
    public void Paths_built_separately_are_equal_with_equal_hash_codes()
    {
        var parsed = AbsolutePath.Parse("/data/photos/2024/img.jpg");
        var built = AbsolutePath.Parse("/data").Child("photos").Child("2024".AsSpan()).Child(new string("img.jpg".ToCharArray()));
        var viaLink = AbsolutePathSymlinkPoint.Create(AbsolutePath.Parse("/data/photos"), "2024", "/elsewhere").Child("img.jpg");

        Assert.NotSame(parsed, built);
        Assert.True(parsed.Equals(built));
        Assert.True(parsed == built);
        Assert.False(parsed != built);
        Assert.True(parsed.Equals((object)viaLink));
        Assert.Equal(parsed.GetHashCode(), built.GetHashCode());
        Assert.Equal(parsed.GetHashCode(), viaLink.GetHashCode());
        Assert.Equal(0, parsed.CompareTo(built));
        Assert.Single(new HashSet<AbsolutePath> { parsed, built, viaLink });
    }

    [Theory]
    [InlineData("/a/b", "/a/c")]
    [InlineData("/a/b", "/a/b/c")]
    [InlineData("/a/b", "/b/b")]
    [InlineData("/a/b", "/a/B")]
    [InlineData("/a/b", "/ab")]
    [InlineData("/a/bc", "/ab/c")]
    public void Different_paths_are_not_equal(string left, string right)
    {
        var a = AbsolutePath.Parse(left);
        var b = AbsolutePath.Parse(right);

        Assert.False(a.Equals(b));
        Assert.False(b.Equals(a));
        Assert.True(a != b);
        Assert.NotEqual(0, a.CompareTo(b));
    }

    [Fact]
    public void Null_and_other_types_are_handled()
    {
        var path = AbsolutePath.Parse("/a");
        AbsolutePath? none = null;

        Assert.False(path.Equals(null));
        Assert.False(path.Equals("/a"));
        Assert.True(path != none);
        Assert.True(none == null);
        Assert.Equal(1, path.CompareTo(null));
        Assert.True(none < path);
        Assert.True(path > none);
        Assert.False(path < none);
    }

    [Fact]
    public void Ignoring_case_compares_names_case_insensitively()
    {
        Assert.True(AbsolutePath.Parse("/Data/IMG.jpg").EqualsIgnoreCase(AbsolutePath.Parse("/data/img.JPG")));
        Assert.False(AbsolutePath.Parse("/Data/IMG.jpg").EqualsIgnoreCase(AbsolutePath.Parse("/data/img.png")));
        Assert.False(AbsolutePath.Parse("/a/b").EqualsIgnoreCase(AbsolutePath.Parse("/a/b/c")));
    }

    [Fact]
    public void Order_is_a_consistent_total_order_matching_name_by_name_comparison()
    {
        var random = new Random(12345);
        var paths = Enumerable.Range(0, 400).Select(_ => RandomPath(random)).ToList();
        paths.Add(AbsolutePath.Parse("/"));

        var texts = paths.Select(p => p.ToString()).ToList();
        for (var i = 0; i < paths.Count; i++)
        {
            for (var j = 0; j < paths.Count; j++)
            {
                var (a, b) = (paths[i], paths[j]);
                var ab = Math.Sign(a.CompareTo(b));
                Assert.Equal(-ab, Math.Sign(b.CompareTo(a)));
                Assert.Equal(ab == 0, a.Equals(b));
                Assert.Equal(Math.Sign(ComponentOrder.Instance.Compare(texts[i], texts[j])), ab);
                Assert.Equal(ab < 0, a < b);
                Assert.Equal(ab <= 0, a <= b);
                Assert.Equal(ab > 0, a > b);
                Assert.Equal(ab >= 0, a >= b);
            }
        }

        // Transitivity: a sort by CompareTo leaves every pair in order.
        var sorted = paths.Order().ToList();
        for (var i = 0; i < sorted.Count; i++)
        {
            for (var j = i + 1; j < sorted.Count; j++)
            {
                Assert.True(sorted[i].CompareTo(sorted[j]) <= 0, $"{sorted[i]} > {sorted[j]}");
            }
        }
    }

    [Fact]
    public void A_folder_sorts_before_its_contents_and_names_compare_ordinally()
    {
        string[] expected = ["/a", "/a/b", "/a/b/c", "/a-b", "/a.b", "/b"];

        var actual = expected.Reverse().Select(AbsolutePath.Parse).Order().Select(p => p.ToString());

        // Plain string order would put "/a-b" and "/a.b" before "/a/b" ('-' and '.' sort before '/').
        Assert.Equal(expected, actual);
    }

    [Fact]
    public void Length_equals_the_length_of_the_full_path()
    {
        var random = new Random(7);
        for (var i = 0; i < 200; i++)
        {
            var path = RandomPath(random);
            Assert.Equal(path.ToString().Length, path.Length);
        }
    }

    [Fact]
    public void IsUnder_accepts_the_path_and_its_ancestors_only()
    {
        var path = AbsolutePath.Parse("/a/b/c");

        Assert.True(path.IsUnder(AbsolutePath.Parse("/a/b/c")));
        Assert.True(path.IsUnder(AbsolutePath.Parse("/a/b")));
        Assert.True(path.IsUnder(AbsolutePath.Parse("/a")));
        Assert.True(path.IsUnder(AbsolutePath.Parse("/")));
        Assert.False(path.IsUnder(AbsolutePath.Parse("/a/bc")));
        Assert.False(path.IsUnder(AbsolutePath.Parse("/a/b/c/d")));
        Assert.False(path.IsUnder(AbsolutePath.Parse("/x")));
        Assert.False(path.IsUnder(AbsolutePath.Parse("/b/c")));
        Assert.Throws<ArgumentNullException>(() => path.IsUnder(null!));
    }

    [Fact]
    public void The_root_is_one_shared_node()
    {
        var root = AbsolutePath.Parse("/");
        var deep = AbsolutePath.Parse("/a/b/c");

        var drive = Assert.IsType<AbsolutePathDriveRoot>(root);
        Assert.Same(drive, deep.Root);
        Assert.Same(drive, AbsolutePathDriveRoot.Get("/"));
        Assert.Same(drive, root.Root);
        Assert.Null(root.Parent);
        Assert.Equal(0, root.Depth);
        Assert.Equal("/", root.Name);
        Assert.Equal(1, root.Length);
        Assert.Same(drive, deep.Parent!.Parent!.Parent);
    }

    [Fact]
    public async Task Folder_names_found_by_one_scan_share_one_string_and_file_names_are_equal()
    {
        using var tree = new TempTree();
        tree.Write("a/sub/same.txt", "same content");
        tree.Write("b/sub/same.txt", "same content");

        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root));

        var files = Assert.Single(groups).Files;
        Assert.Equal(2, files.Count);
        // File names live as bytes in the scan's table; a string is made only for a reported file.
        Assert.Equal(files[0].Path.Name, files[1].Path.Name);
        Assert.Same(files[0].Path.Parent!.Name, files[1].Path.Parent!.Name);
    }

    [Fact]
    public void A_name_table_interns_within_itself_only_and_paths_outside_a_scan_keep_their_names()
    {
        var name = "name-" + Guid.NewGuid().ToString("N");
        var names = new NameTable();
        var other = new NameTable();
        var a = AbsolutePath.Parse("/x").Child(name.AsSpan(), names);
        var b = AbsolutePath.Parse("/y/z").Child(new string(name.ToCharArray()).AsSpan(), names);

        Assert.Same(a.Name, b.Name);
        Assert.NotSame(a.Name, AbsolutePath.Parse("/x").Child(name.AsSpan(), other).Name);
        Assert.Equal(1, names.Count);

        // Long file names are only looked up: a new one is not kept, a folder's name already seen is shared.
        var longName = new string('n', NameTable.ShortNameLength + 1);
        Assert.NotSame(names.InternFileName(longName), names.InternFileName(longName));
        var folder = names.Intern(longName);
        Assert.Same(folder, names.InternFileName(new string('n', NameTable.ShortNameLength + 1)));

        // Outside a scan names are not interned, and equality compares them by content.
        var parsed = AbsolutePath.Parse("/x/" + name);
        Assert.Equal(a, parsed);
        Assert.Equal(a.GetHashCode(), parsed.GetHashCode());
        Assert.Equal(parsed, AbsolutePath.Parse("/x").Child(new string(name.ToCharArray())));
    }

    [Fact]
    public void A_symlink_point_resolves_its_target()
    {
        var parent = AbsolutePath.Parse("/a/b");

        Assert.Equal("/a/x/y", AbsolutePathSymlinkPoint.Create(parent, "link", "../x/y").ResolvedTarget.ToString());
        Assert.Equal("/etc", AbsolutePathSymlinkPoint.Create(parent, "link", "/etc").ResolvedTarget.ToString());
        Assert.Equal("/a/b/link", AbsolutePathSymlinkPoint.Create(parent, "link", "/etc").ToString());
    }

    [Fact]
    public void Utf8_is_written_with_a_terminator_or_refused_when_it_does_not_fit()
    {
        var path = AbsolutePath.Parse("/dir/fichier-é😀");
        var expected = Encoding.UTF8.GetBytes(path.ToString());
        var buffer = new byte[64];

        var written = path.WriteUtf8(buffer);

        Assert.Equal(expected.Length, written);
        Assert.Equal(expected, buffer[..written]);
        Assert.Equal(0, buffer[written]);
        Assert.Equal(-1, path.WriteUtf8(new byte[expected.Length]));
        Assert.Equal(expected.Length, path.WriteUtf8(new byte[expected.Length + 1]));
    }

    private static AbsolutePath RandomPath(Random random)
    {
        var depth = random.Next(1, 5);
        var text = string.Concat(Enumerable.Range(0, depth).Select(_ => "/" + Names[random.Next(Names.Length)]));
        return AbsolutePath.Parse(text);
    }
}
