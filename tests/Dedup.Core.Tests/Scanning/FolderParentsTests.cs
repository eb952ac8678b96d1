using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// The file table keeps each folder's parent number (the reader's folder descriptors are chosen by the files below each
/// folder): past a chunk of 4,096, and with folders registered without a parent (a custom enumerator's) in between.
/// </summary>
public sealed class FolderParentsTests
{
    [Fact]
    public void Every_folder_keeps_its_parent_past_the_first_chunk()
    {
        var table = new FileTable();
        for (var i = 0; i < 5000; i++)
        {
            Assert.Equal(i, table.AddFolder(AbsolutePath.Parse($"/data/f{i}"), i - 1));
        }

        Assert.Equal(-1, table.GetParent(0));
        Assert.Equal(4095, table.GetParent(4096));
        Assert.Equal(4998, table.GetParent(4999));
        Assert.Equal(-1, table.GetParent(5000)); // no such folder
    }

    [Fact]
    public void Folders_registered_without_a_parent_are_roots_and_leave_the_others_in_place()
    {
        var table = new FileTable();
        var root = table.AddFolder(AbsolutePath.Parse("/data"), -1);
        var loose = table.AddFolder(AbsolutePath.Parse("/elsewhere")); // a custom enumerator's folder
        var child = table.AddFolder(AbsolutePath.Parse("/data/child"), root);
        var last = table.AddFolder(AbsolutePath.Parse("/last"));

        Assert.Equal((0, 1, 2, 3), (root, loose, child, last));
        Assert.Equal(-1, table.GetParent(root));
        Assert.Equal(-1, table.GetParent(loose));
        Assert.Equal(root, table.GetParent(child));
        Assert.Equal(-1, table.GetParent(last));
    }
}
