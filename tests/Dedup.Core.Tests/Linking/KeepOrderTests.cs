using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Folders;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="KeepRule.PathOrder"/> keeps originals (issue #37 point 2): folder by folder, each name by its kernel bytes
/// without the extension first. Whole paths compared byte by byte kept the copy in each case below (' ', '-' sort
/// before '/' and '.'), and a cron job with --yes emptied the original locations.
/// </summary>
public sealed class KeepOrderTests
{
    [Theory]
    [InlineData("/p/Photos/a.jpg", "/p/Photos (copy)/a.jpg")]
    [InlineData("/p/big-a.bin", "/p/big-a-copy.bin")]
    [InlineData("/p/proj/Pod/x.bin", "/p/proj-copy-final/proj/Pod/x.bin")]
    [InlineData("/p/a.jpg", "/p/a (1).jpg")]
    [InlineData("/p/report.pdf", "/p/report.pdf.bak")]
    [InlineData("/p/b.bin", "/p/.snapshots/a.bin")] // hidden folders last, as before
    [InlineData("/p/x/Photos (copy)/a.jpg", "/p/.Photos/a.jpg")]
    public void Path_order_keeps_the_original(string original, string copy)
    {
        Assert.Equal(original, Kept(original, copy));
        Assert.Equal(original, Kept(copy, original));
    }

    [Fact]
    public void Names_compare_by_the_kernels_bytes_not_by_UTF16()
    {
        // "a\uDCFF" is the byte 0xff (not UTF-8), "a\uFFFD" the bytes EF BF BD: the kernel's order puts U+FFFD first,
        // UTF-16's the escaped byte. Likewise U+E000 (EE 80 80) sorts before U+1F600 (F0 …, a surrogate pair in UTF-16).
        Assert.Equal("/p/a\uFFFD", Kept("/p/a\uDCFF", "/p/a\uFFFD"));
        Assert.Equal("/p/\uE000", Kept("/p/\U0001F600", "/p/\uE000"));
    }

    [Fact]
    public void Long_names_compare_by_the_kernels_bytes_too()
    {
        // Past the stack buffer: longer than any Linux name (255 bytes), as a Windows name may be in UTF-8.
        var stem = new string('n', 300);
        Assert.Equal($"/p/{stem}\uFFFD", Kept($"/p/{stem}\uDCFF", $"/p/{stem}\uFFFD"));
        Assert.Equal($"/p/{stem}\uE000", Kept($"/p/{stem}\U0001F600", $"/p/{stem}\uE000"));
    }

    [Fact]
    public void A_leading_dot_starts_no_extension()
    {
        // ".config" has no extension, ".cache.old" the stem ".cache": ".cache" < ".config". Were the leading dot an
        // extension's, the stems would be "" and ".cache", and ".config" would sort first.
        Assert.Equal("/h/.cache.old", Kept("/h/.config", "/h/.cache.old"));
    }

    [Fact]
    public void The_order_is_total_and_consistent()
    {
        string[] names = ["a", "a.b", "a.b.c", "a-b", "a b", "a.jpg", "a (1).jpg", "ab", "a.", ".a", "..a", "b", "A", "a\uDCFF", "a\uFFFD", "\uE000", "\U0001F600"];
        var paths = names.SelectMany(n => new[] { "/r/" + n, "/r/" + n + "/x", "/r/q/" + n }).Select(AbsolutePath.Parse).ToArray();
        foreach (var x in paths)
        {
            Assert.Equal(0, KeepOrder.Compare(x, x));
            foreach (var y in paths)
            {
                var xy = Math.Sign(KeepOrder.Compare(x, y));
                Assert.Equal(-xy, Math.Sign(KeepOrder.Compare(y, x)));
                Assert.Equal(x == y, xy == 0);
                foreach (var z in paths.Where(z => xy < 0 && KeepOrder.Compare(y, z) < 0))
                {
                    Assert.True(KeepOrder.Compare(x, z) < 0, $"{x} < {y} < {z}");
                }
            }
        }
    }

    [Fact]
    public void A_folder_sorts_before_what_lies_inside_it()
    {
        Assert.True(KeepOrder.Compare(AbsolutePath.Parse("/p/a"), AbsolutePath.Parse("/p/a/b")) < 0);
        Assert.True(KeepOrder.Compare(AbsolutePath.Parse("/p/a/b"), AbsolutePath.Parse("/p/a")) > 0);
    }

    [LinuxFact]
    public async Task Folder_actions_keep_the_original_folder_too()
    {
        // proj/ and proj-copy-final/proj/ are equal (Pod/ with the same files): the folder kept is proj/.
        using var tree = new TempTree();
        foreach (var root in new[] { "proj", "proj-copy-final/proj" })
        {
            tree.Write($"{root}/Pod/one.bin", TempTree.RandomBytes(3000, 371));
            tree.Write($"{root}/Pod/two.bin", TempTree.RandomBytes(4000, 372));
        }

        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(scan.FolderGroups);

        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("proj"), action.Kept.ToString());
        Assert.Equal(tree.PathOf("proj-copy-final/proj"), action.Folder.ToString());
    }

    private static string Kept(params string[] paths)
    {
        var files = paths.Select((p, i) => new DuplicateFile(AbsolutePath.Parse(p), [], new FileIdentity(1, (ulong)i + 1), 10, 1, DateTime.UnixEpoch)).ToArray();
        return KeepRule.SelectKept(files, [KeepRule.PathOrder], static _ => false)!.Path.ToString();
    }
}
