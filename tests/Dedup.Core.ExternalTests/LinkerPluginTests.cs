// A linker of the user's own (the backup sample's StubLinker), plugged into a plan from an assembly that sees only
// the public API: it decides what to write, the library keeps the checks (re-check, byte comparison, last re-check,
// temporary name and rename, rollback).
using BackupTool;
using Dedup.Core.Linking;

namespace Dedup.Core.ExternalTests;

// Same collection as PluggableAbstractionsTests: both redirect Console.Out to run the sample.
[Collection("ConsoleOut")]
public sealed class LinkerPluginTests
{
    private static readonly byte[] Content = TempFolder.RandomBytes(70_000, 71);

    [LinuxFact]
    public async Task A_backup_tools_linker_replaces_duplicates_with_its_stubs()
    {
        using var tree = new TempFolder();
        var kept = tree.Write("a/photo.jpg", Content);
        var copy = tree.Write("b/photo.jpg", Content);
        var small = tree.Write("a/tiny.txt", "tiny");
        tree.Write("b/tiny.txt", "tiny");
        var (groups, _) = await Scans.RunAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).Build());

        var plan = new DuplicateActionPlanBuilder().UseLinker(new StubLinker()).Keep(KeepRule.PathOrder).Build().Plan(groups);
        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.Equal("smaller than a stub; kept as it is", Assert.Single(report.Outcomes, o => o.Status == DuplicateActionStatus.Skipped).Reason);
        Assert.Equal(kept, StubLinker.KeptPathOf(File.ReadAllText(copy)));
        Assert.Equal(Content, File.ReadAllBytes(kept));
        Assert.Equal("tiny", File.ReadAllText(small));
        Assert.Equal(Content.Length, report.ReclaimedBytes);
        Assert.Empty(Directory.GetFiles(Path.Combine(tree.Root, "b"), ".dedup-tmp-*"));
    }

    [LinuxFact]
    public async Task The_library_never_hands_a_changed_duplicate_to_the_linker()
    {
        using var tree = new TempFolder();
        tree.Write("a/data.bin", Content);
        var copy = tree.Write("b/data.bin", Content);
        var (groups, _) = await Scans.RunAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).Build());
        var linker = new CountingLinker(new StubLinker());
        var plan = new DuplicateActionPlanBuilder().UseLinker(linker).Keep(KeepRule.PathOrder).Build().Plan(groups);

        // One byte changed after the scan; size and modification time put back, so only the byte comparison can tell.
        var time = File.GetLastWriteTimeUtc(copy);
        var changed = (byte[])Content.Clone();
        changed[^10] ^= 0xFF;
        File.WriteAllBytes(copy, changed);
        File.SetLastWriteTimeUtc(copy, time);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal(0, linker.Calls);
        Assert.Equal(changed, File.ReadAllBytes(copy));
    }

    [LinuxFact]
    public void The_backup_sample_replaces_duplicates_with_stubs()
    {
        using var tree = new TempFolder();
        var first = tree.Write("a.bin", Content);
        var second = tree.Write("b.bin", Content);
        var manifest = Tools.WriteManifest(tree.Root);
        var output = new StringWriter();
        var previous = Console.Out;
        int exitCode;
        Console.SetOut(output);
        try
        {
            exitCode = (int)typeof(StubLinker).Assembly.EntryPoint!.Invoke(null, [new[] { tree.Root, manifest, "--stubs" }])!;
        }
        finally
        {
            Console.SetOut(previous);
        }

        Assert.Equal(0, exitCode);
        Assert.Contains($"1 replaced with stubs, 0 skipped, 0 failed; {Content.Length} bytes reclaimed.", output.ToString(), StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(first));
        Assert.Equal(first, StubLinker.KeptPathOf(File.ReadAllText(second)));
    }

    private sealed class CountingLinker(Linker inner) : Linker
    {
        public int Calls { get; private set; }

        public override DuplicateActionKind Kind => inner.Kind;

        public override string Description => inner.Description;

        public override string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) => inner.RefuseAtPlanTime(kept, duplicate);

        public override void Apply(LinkerContext context)
        {
            Calls++;
            inner.Apply(context);
        }
    }
}
