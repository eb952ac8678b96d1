using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="PortableContext"/> (the Windows and macOS re-checks, run here on Linux) called step by step (issue #34,
/// point 12): each check refuses on its own, a duplicate that is the kept file under another name is refused by every
/// step that opens it, the kept file is opened once, and a refused open closes what it opened.
/// </summary>
public sealed class PortableContextTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(9_000, 251);

    private const string SameFile = "the duplicate is the kept file itself under another path (a hard link, a linked folder or another path to the same volume); left untouched";

    [LinuxFact]
    public void The_kept_files_own_check_refuses_a_changed_kept_file()
    {
        using var tree = new LinkTree();
        var (kept, action) = Pair(tree);
        File.AppendAllText(kept, "x");
        using var context = new PortableContext(action);

        var refused = Assert.Throws<ActionStoppedException>(context.CheckKeptUnchanged);

        Assert.Equal($"kept file {kept} changed size from 9000 to 9001 bytes since the scan; nothing done", refused.Message);
    }

    [LinuxFact]
    public void A_duplicate_that_is_the_kept_file_is_refused_by_every_step_that_opens_it()
    {
        using var tree = new LinkTree();
        var kept = tree.Write("a.bin", Content);
        var duplicate = tree.PathOf("b.bin");
        TempTree.Run("ln", kept, duplicate);
        var action = ActionOf(kept, duplicate);

        using (var checking = new PortableContext(action))
        {
            checking.CheckKeptUnchanged();
            Assert.Equal(SameFile, Assert.Throws<ActionStoppedException>(checking.CheckDuplicateUnchanged).Message);
        }

        using (var verifying = new PortableContext(action))
        {
            verifying.CheckKeptUnchanged();
            Assert.Equal(SameFile, Assert.Throws<ActionStoppedException>(verifying.VerifyContent).Message);
        }

        using var reading = new PortableContext(action);
        reading.CheckKeptUnchanged();
        var read = false;
        Assert.Equal(SameFile, Assert.Throws<ActionStoppedException>(() => reading.ReadDuplicate(_ => read = true)).Message);
        Assert.False(read);
    }

    [LinuxFact]
    public void The_kept_file_is_opened_once_and_only_by_the_verification()
    {
        using var tree = new LinkTree();
        var (_, action) = Pair(tree);
        using var context = new PortableContext(action);

        var early = Assert.Throws<InvalidOperationException>(() => context.KeptHandle);
        context.VerifyContent();
        var handle = context.KeptHandle;
        context.VerifyContent();

        Assert.Equal("The content was not verified yet.", early.Message);
        Assert.Same(handle, context.KeptHandle);
    }

    [LinuxFact]
    public void A_changed_duplicate_is_named_as_the_duplicate_and_its_open_is_closed()
    {
        using var tree = new LinkTree();
        var (_, action) = Pair(tree);
        var duplicate = action.Path.ToString();
        File.AppendAllText(duplicate, "x");
        using var context = new PortableContext(action);
        const string Expected = "duplicate changed size from 9000 to 9001 bytes since the scan; left untouched";

        Assert.Equal(Expected, Assert.Throws<ActionStoppedException>(context.VerifyContent).Message);
        Assert.DoesNotContain(duplicate, OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.Equal(Expected, Assert.Throws<ActionStoppedException>(() => context.ReadDuplicate(_ => 0)).Message);
        Assert.DoesNotContain(duplicate, OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public void A_name_the_system_cannot_look_up_gives_the_opens_message()
    {
        using var tree = new TempTree();

        Assert.Equal("cannot be opened: the error", PortableContext.WhyNotOpened(tree.PathOf(new string('n', 300)), "the error"));
    }

    private static (string Kept, DuplicateAction Action) Pair(LinkTree tree)
    {
        var kept = tree.Write("a.bin", Content);
        var duplicate = tree.Write("b.bin", Content);
        return (kept, ActionOf(kept, duplicate));
    }

    /// <summary>The action on <paramref name="duplicate"/> keeping <paramref name="kept"/>, as the portable scan lists them (made-up identities).</summary>
    internal static DuplicateAction ActionOf(string kept, string duplicate)
    {
        string[] paths = [kept, duplicate];
        var files = paths
            .Select((path, i) =>
            {
                var info = new FileInfo(path);
                return new DuplicateFile(AbsolutePath.Parse(path), [], new FileIdentity(0, (ulong)(i + 1)), info.Length, 1, info.LastWriteTimeUtc);
            })
            .ToArray();
        var plan = LinkTree.Plan([new DuplicateGroup(files[0].Length, files, verifiedByBytes: true).Rooted()], Linkers.Delete, KeepRule.Custom("first given", (x, y) => Array.IndexOf(paths, x.Path.ToString()).CompareTo(Array.IndexOf(paths, y.Path.ToString()))));
        return Assert.Single(plan.Actions);
    }
}
