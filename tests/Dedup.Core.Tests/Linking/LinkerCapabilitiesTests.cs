using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Linkers declare what they do (#35 step 4) and the planner, executor, prediction and plan text read that, not the
/// kind: each built-in's declarations pinned, one registration per built-in kind, a wrapper of a built-in treated as
/// its kind but without the built-in code's trust, and a <see cref="Linker"/> of the user's own treated conservatively.
/// </summary>
public sealed class LinkerCapabilitiesTests
{
    private static readonly DateTime Time = new(2022, 5, 1, 0, 0, 0, DateTimeKind.Utc);

    [Theory]
    //          kind, data, removes, metadata, verifies, same device, folders, takes links, probe, platforms, undo
    [InlineData(DuplicateActionKind.HardLink, false, false, true, false, true, true, true, ProbedOperation.None, LinkerPlatforms.Linux | LinkerPlatforms.Windows, LinkerUndo.CopyOfKept)]
    [InlineData(DuplicateActionKind.SymbolicLink, false, false, true, false, false, true, true, ProbedOperation.None, LinkerPlatforms.Linux | LinkerPlatforms.Windows, LinkerUndo.CopyOfKept)]
    [InlineData(DuplicateActionKind.Clone, false, false, false, false, true, true, true, ProbedOperation.Clone, LinkerPlatforms.Linux | LinkerPlatforms.Windows, LinkerUndo.CopyOfKept)]
    [InlineData(DuplicateActionKind.Dedupe, true, false, false, true, true, true, true, ProbedOperation.Dedupe, LinkerPlatforms.Linux, LinkerUndo.NothingVisible)]
    [InlineData(DuplicateActionKind.Delete, false, true, false, false, false, true, true, ProbedOperation.None, LinkerPlatforms.All, LinkerUndo.Irreversible)]
    [InlineData(DuplicateActionKind.Trash, false, true, false, false, false, true, false, ProbedOperation.None, LinkerPlatforms.All, LinkerUndo.FromTrash)]
    internal void Each_built_in_linker_declares_what_it_does(
        DuplicateActionKind kind, bool data, bool removes, bool metadata, bool verifies, bool sameDevice, bool folders, bool takesLinks, ProbedOperation probe, LinkerPlatforms platforms, LinkerUndo undo)
    {
        var declared = LinkerCapabilities.Of(Linkers.BuiltIn.Single(l => l.Kind == kind));

        Assert.Equal(
            (kind, data, removes, metadata, verifies, sameDevice, folders, takesLinks, probe, platforms, undo),
            (declared.Kind, declared.ActsOnData, declared.RemovesName, declared.SharesKeptMetadata, declared.VerifiesContentItself, declared.NeedsSameDevice,
                declared.ActsOnFolders, declared.TakesSymbolicLinks, declared.Probe, declared.Platforms, declared.Undo));
        Assert.Equal(metadata, declared.PlanNote is not null); // what a link loses is said under the plan
        Assert.Equal(platforms.HasFlag(LinkerPlatforms.Windows), declared.WindowsGap is null);
    }

    [Fact]
    public void Every_built_in_kind_is_registered_once_and_the_public_linkers_are_the_registered_ones()
    {
        var kinds = Enum.GetValues<DuplicateActionKind>().Where(k => k != DuplicateActionKind.Custom);

        Assert.Equal(kinds.Order(), Linkers.BuiltIn.Select(l => l.Kind).Order());
        foreach (var linker in new[] { Linkers.HardLink, Linkers.Clone, Linkers.Dedupe, Linkers.Delete, Linkers.Trash })
        {
            Assert.Contains(linker, Linkers.BuiltIn);
        }

        Assert.Equal(DuplicateActionKind.SymbolicLink, Linkers.SymbolicLink(relative: false).Kind);
        Assert.Same(LinkerCapabilities.Of(Linkers.BuiltIn.Single(l => l.Kind == DuplicateActionKind.SymbolicLink)), LinkerCapabilities.Of(Linkers.SymbolicLink(relative: false)));
    }

    [Fact]
    public void A_wrapper_of_a_built_in_is_treated_as_its_kind_but_neither_skips_the_byte_check_nor_is_probed()
    {
        foreach (var builtIn in Linkers.BuiltIn)
        {
            var wrapper = new Wrapper(builtIn);

            Assert.Equal(LinkerCapabilities.Of(builtIn) with { VerifiesContentItself = false, Probe = ProbedOperation.None }, LinkerCapabilities.Of(wrapper));
            Assert.Equal(LinkerCapabilities.VerbOf(builtIn), LinkerCapabilities.VerbOf(wrapper));
        }
    }

    [Fact]
    public void A_linker_of_your_own_is_custom_named_by_its_description_and_treated_conservatively()
    {
        var own = new OwnLinker("stub\nit");
        var wrapped = new Wrapper(own);

        Assert.Equal(DuplicateActionKind.Custom, own.Kind);
        Assert.Equal("stub\nit:", own.Verb);
        Assert.Equal(@"stub\nit:", LinkerCapabilities.VerbOf(own));
        Assert.Equal(@"stub\nit:", LinkerCapabilities.VerbOf(wrapped));
        Assert.Same(LinkerCapabilities.Custom, LinkerCapabilities.Of(own));
        Assert.Same(LinkerCapabilities.Custom, LinkerCapabilities.Of(wrapped));
        Assert.Equal(
            (false, false, false, false, false, false, true, ProbedOperation.None, LinkerPlatforms.All, LinkerUndo.Irreversible, (string?)null),
            (LinkerCapabilities.Custom.ActsOnData, LinkerCapabilities.Custom.RemovesName, LinkerCapabilities.Custom.SharesKeptMetadata,
                LinkerCapabilities.Custom.VerifiesContentItself, LinkerCapabilities.Custom.NeedsSameDevice, LinkerCapabilities.Custom.ActsOnFolders, LinkerCapabilities.Custom.TakesSymbolicLinks,
                LinkerCapabilities.Custom.Probe, LinkerCapabilities.Custom.Platforms, LinkerCapabilities.Custom.Undo, LinkerCapabilities.Custom.PlanNote));
        Assert.Null(own.RefuseAtPlanTime(File("/k.bin", 1), File("/d.bin", 2)));
    }

    [Fact]
    public void A_linker_reporting_a_kind_no_built_in_has_is_treated_as_a_linker_of_your_own()
    {
        var unknown = new KindLinker((DuplicateActionKind)42);

        Assert.Same(LinkerCapabilities.Custom, LinkerCapabilities.Of(unknown));
        Assert.Equal("unknown kind:", LinkerCapabilities.VerbOf(unknown));
    }

    [LinuxFact]
    public void A_linker_of_your_own_writes_its_own_verb_in_the_dry_run_and_is_accepted_everywhere()
    {
        var group = new DuplicateGroup(10, [File("/u/a.bin", 1), File("/u/d.bin", 2)], verifiedByBytes: true).Rooted();
        var plan = new DuplicateActionPlanBuilder().UseLinker(new OwnLinker("replace with a stub", verb: "stub")).Build().Plan([group]);

        Assert.Equal(
            ["keep /u/a.bin (10 bytes)", "  stub /u/d.bin (frees 10 bytes)", "1 actions, 10 B (10 bytes) to reclaim"],
            PlanTextTests.Lines(plan.WriteTo));
        Assert.Null(DuplicateActionPlanBuilder.PlatformRefusal(new OwnLinker("x"), linux: false, windows: true, macOS: false));
        Assert.Null(DuplicateActionPlanBuilder.PlatformRefusal(new OwnLinker("x"), linux: false, windows: false, macOS: true));
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for FIDEDUPERANGE")]
    public async Task Only_the_built_in_dedupe_leaves_the_byte_check_to_the_kernel()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(1 << 20, 35);

        Assert.Contains("kernel found the content differs", await ChangedUnnoticedAsync(tree, "plain", content, Linkers.Dedupe), StringComparison.Ordinal);
        Assert.Contains("content differs from the kept file at byte 700000", await ChangedUnnoticedAsync(tree, "wrapped", content, new Wrapper(Linkers.Dedupe)), StringComparison.Ordinal);
        Assert.Contains("content differs from the kept file at byte 700000", await ChangedUnnoticedAsync(tree, "own", content, new OwnLinker("share", apply: c => c.DedupeWithKept())), StringComparison.Ordinal);
        tree.AssertNoTemporaryFiles();
    }

    /// <summary>Plans <paramref name="linker"/> on two equal files, changes the duplicate's bytes keeping its size and time, and applies: the skip reason.</summary>
    private static async Task<string?> ChangedUnnoticedAsync(LinkTree tree, string folder, byte[] content, Linker linker)
    {
        tree.Write(folder + "/a.bin", content);
        var b = tree.Write(folder + "/b.bin", content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf(folder)), linker);
        var time = System.IO.File.GetLastWriteTimeUtc(b);
        var changed = (byte[])content.Clone();
        changed[700_000] ^= 0x5A;
        await System.IO.File.WriteAllBytesAsync(b, changed);
        System.IO.File.SetLastWriteTimeUtc(b, time);

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal(changed, await System.IO.File.ReadAllBytesAsync(b));
        return outcome.Reason;
    }

    private static DuplicateFile File(string path, ulong inode, long length = 10) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(1, inode), length, 1, Time);

    /// <summary>A <see cref="Linker"/> around another one, as a host's decorator (counting, logging) would be.</summary>
    private sealed class Wrapper(Linker inner) : Linker
    {
        public override DuplicateActionKind Kind => inner.Kind;

        public override string Description => inner.Description;

        public override string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) => inner.RefuseAtPlanTime(kept, duplicate);

        public override void Apply(LinkerContext context) => inner.Apply(context);
    }

    /// <summary>A linker of the user's own that reports <paramref name="kind"/>.</summary>
    private sealed class KindLinker(DuplicateActionKind kind) : Linker
    {
        public override DuplicateActionKind Kind => kind;

        public override string Description => "unknown kind";

        public override void Apply(LinkerContext context) => context.Skip("never applied here");
    }

    /// <summary>A linker of the user's own on the public base type, with the defaults unless told otherwise.</summary>
    private sealed class OwnLinker(string description, string? verb = null, Action<LinkerContext>? apply = null) : Linker
    {
        public override string Description => description;

        public override string Verb => verb ?? base.Verb;

        public override void Apply(LinkerContext context) => (apply ?? (c => c.Delete()))(context);
    }
}
