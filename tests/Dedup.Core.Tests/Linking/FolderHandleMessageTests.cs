using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>A failed folder lookup reports its own errno, not the one <c>close</c> left behind ("…: Success").</summary>
public sealed class FolderHandleMessageTests
{
    [LinuxFact]
    public void A_lookup_that_fails_after_the_walk_names_its_own_error()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("x"));

        // realpath resolves it (to the tree), the walk opens it, then the plain lookup of the written path fails:
        // the path is longer than PATH_MAX.
        var path = tree.Root + string.Concat(Enumerable.Repeat("/x/..", 1100));
        Assert.True(path.Length > 4096);

        using var handle = FolderHandle.TryOpen(path, followLast: true, out var problem);

        Assert.Null(handle);
        Assert.Equal("File name too long", problem);
    }
}
