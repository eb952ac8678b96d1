using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="LinkerContext"/>'s one-operation rule names both operations, whichever came first, and the
/// operations that only Linux implements skip on the portable path (Windows and macOS, run here on Linux with a
/// stand-in for the system trash) with their own names.
/// </summary>
public sealed class LinkerContextOperationTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(3000, 61);

    public static TheoryData<string> Operations => new() { "hard link", "symbolic link", "clone", "replace with a file", "move to trash", "move to trash (home trash)" };

    [LinuxTheory]
    [MemberData(nameof(Operations))]
    public void A_second_operation_is_refused_naming_the_first(string operation)
    {
        using var tree = new LinkTree();
        string? second = null;
        var linker = new DelegateLinker(c =>
        {
            try
            {
                Perform(c, operation, tree);
            }
            finally
            {
                second = Assert.Throws<InvalidOperationException>(() => c.Delete()).Message;
            }
        });

        ApplyPortable(tree, linker);

        var asked = operation.StartsWith("move to trash", StringComparison.Ordinal) ? "move to trash" : operation;
        Assert.Equal($"A linker performs one operation per action; 'delete' was asked after '{asked}'.", second);
    }

    [LinuxFact]
    public void Replacing_with_a_file_skips_off_linux_and_leaves_the_duplicate()
    {
        using var tree = new LinkTree();
        var written = false;
        var linker = new DelegateLinker(c => c.ReplaceWithFile(_ => written = true));

        var (outcome, duplicate) = ApplyPortable(tree, linker);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal("replacing with a file is implemented for Linux only; nothing done", outcome.Reason);
        Assert.False(written);
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
    }

    private static void Perform(LinkerContext context, string operation, LinkTree tree)
    {
        switch (operation)
        {
            case "hard link": context.ReplaceWithHardLink(); break;
            case "symbolic link": context.ReplaceWithSymbolicLink(); break;
            case "clone": context.ReplaceWithClone(); break;
            case "replace with a file": context.ReplaceWithFile(s => s.WriteByte(1)); break;
            case "move to trash": context.MoveToTrash(); break;
            default: context.MoveToTrash(tree.PathOf("home-trash")); break;
        }
    }

    /// <summary>keep/a.bin and dup/a.bin, planned as the portable scan lists them and applied on the portable path.</summary>
    private static (DuplicateActionOutcome Outcome, string Duplicate) ApplyPortable(LinkTree tree, Linker linker)
    {
        var kept = tree.Write("keep/a.bin", Content);
        var duplicate = tree.Write("dup/a.bin", Content);
        var files = new[] { kept, duplicate }
            .Select((path, i) => new DuplicateFile(AbsolutePath.Parse(path), [], new FileIdentity(0, (ulong)(i + 1)), Content.Length, 1, new FileInfo(path).LastWriteTimeUtc))
            .ToArray();
        var plan = LinkTree.Plan([new DuplicateGroup(Content.Length, files, verifiedByBytes: true).Rooted()], linker, KeepRule.PathOrder);
        var trash = tree.PathOf("stand-in-trash");
        Directory.CreateDirectory(trash);
        var report = PlanExecutor.ApplyPortable(plan, path => File.Move(path, Path.Combine(trash, "moved")), CancellationToken.None);
        return (Assert.Single(report.Outcomes), duplicate);
    }

    private sealed class DelegateLinker(Action<LinkerContext> apply) : Linker
    {
        public override string Description => "custom";

        public override void Apply(LinkerContext context) => apply(context);
    }
}
