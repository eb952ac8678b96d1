using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Which linkers <see cref="DuplicateActionPlanBuilder.Build"/> accepts on each platform, decided on Linux through
/// <see cref="DuplicateActionPlanBuilder.PlatformRefusal"/> with the platform passed in (Windows and macOS run their own
/// test projects; these pin the decision and its messages on every platform at once).
/// </summary>
public sealed class DuplicateActionPlanBuilderTests
{
    public static TheoryData<string, bool, bool, bool> Accepted => new()
    {
        // linker, linux, windows, macOS
        { "hard link", true, false, false },
        { "dedupe", true, false, false },
        { "hard link", false, true, false },
        { "symbolic link", false, true, false },
        { "clone", false, true, false },
        { "delete", false, true, false },
        { "trash", false, true, false },
        { "custom", false, true, false },
        { "delete", false, false, true },
        { "trash", false, false, true },
        { "custom", false, false, true },
    };

    [Theory]
    [MemberData(nameof(Accepted))]
    public void A_linker_implemented_on_the_platform_is_accepted(string linker, bool linux, bool windows, bool macOS) =>
        Assert.Null(DuplicateActionPlanBuilder.PlatformRefusal(LinkerOf(linker), linux, windows, macOS));

    [Fact]
    public void Dedupe_is_refused_on_windows_pointing_to_clone_on_refs()
    {
        Assert.Equal(
            "Dedupe (kernel-verified dedupe) is implemented for Linux only: Windows has no call that compares and shares two files' clusters under lock (FIDEDUPERANGE); use Linkers.Clone on ReFS, which verifies the bytes itself.",
            DuplicateActionPlanBuilder.PlatformRefusal(Linkers.Dedupe, linux: false, windows: true, macOS: false));
    }

    [Fact]
    public void Links_clones_and_dedupe_are_refused_on_macos()
    {
        foreach (var name in new[] { "hard link", "symbolic link", "clone" })
        {
            var linker = LinkerOf(name);
            Assert.Equal(
                $"{linker.Kind} ({linker.Description}) is implemented for Linux and Windows only; on macOS only Linkers.Delete and Linkers.Trash are (clonefile and symbolic links are not implemented).",
                DuplicateActionPlanBuilder.PlatformRefusal(linker, linux: false, windows: false, macOS: true));
        }

        // Dedupe names the one platform it has (before the capabilities, it claimed Windows too).
        Assert.Equal(
            "Dedupe (kernel-verified dedupe) is implemented for Linux only; on macOS only Linkers.Delete and Linkers.Trash are (clonefile and symbolic links are not implemented).",
            DuplicateActionPlanBuilder.PlatformRefusal(Linkers.Dedupe, linux: false, windows: false, macOS: true));
    }

    [Fact]
    public void Every_linker_is_refused_on_another_system()
    {
        foreach (var name in new[] { "hard link", "delete", "trash", "custom" })
        {
            var linker = LinkerOf(name);
            Assert.Equal(
                $"Acting on duplicates ({linker.Description}) is implemented for Linux, Windows and macOS only.",
                DuplicateActionPlanBuilder.PlatformRefusal(linker, linux: false, windows: false, macOS: false));
        }
    }

    [LinuxFact]
    public void Build_on_linux_accepts_every_built_in_linker_and_still_requires_one()
    {
        foreach (var name in new[] { "hard link", "symbolic link", "clone", "dedupe", "delete", "trash", "custom" })
        {
            var linker = LinkerOf(name);
            Assert.Same(linker, new DuplicateActionPlanBuilder().UseLinker(linker).Build().Linker);
        }

        Assert.Throws<InvalidOperationException>(() => new DuplicateActionPlanBuilder().Build());
    }

    private static Linker LinkerOf(string name) => name switch
    {
        "hard link" => Linkers.HardLink,
        "symbolic link" => Linkers.SymbolicLink(),
        "clone" => Linkers.Clone,
        "dedupe" => Linkers.Dedupe,
        "delete" => Linkers.Delete,
        "trash" => Linkers.Trash,
        _ => new CustomLinker(),
    };

    private sealed class CustomLinker : Linker
    {
        public override string Description => "custom";

        public override void Apply(LinkerContext context) => context.Skip("never applied here");
    }
}
