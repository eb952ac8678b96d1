using Dedup.Core.Comparison;
using Dedup.Core.Reporting;
using Dedup.Core.Topology;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests;

/// <summary><see cref="DuplicateFinderBuilder"/> rejects bad settings at <c>Build()</c> with the documented exceptions.</summary>
public sealed class BuilderValidationTests
{
    [Fact]
    public void Build_without_roots_fails()
    {
        Assert.Throws<InvalidOperationException>(() => new DuplicateFinderBuilder().Build());
    }

    [Fact]
    public async Task A_missing_root_is_checked_when_the_scan_starts_not_at_Build()
    {
        using var tree = new TempTree();
        var missing = tree.PathOf("does-not-exist");

        // A service builds its finder before its backup disk is mounted: Build does not throw.
        var finder = new DuplicateFinderBuilder().AddRoot(missing).Build();
        var ex = Assert.Throws<DirectoryNotFoundException>(finder.CheckRoots);
        Assert.Contains(missing, ex.Message, StringComparison.Ordinal);

        var scan = finder.FindAsync();
        var scanError = await Assert.ThrowsAsync<DirectoryNotFoundException>(async () =>
        {
            await foreach (var group in scan)
            {
                Assert.Fail($"No group may come from a missing root: {group}");
            }
        });
        Assert.Contains(missing, scanError.Message, StringComparison.Ordinal);
        Assert.True(scan.IsCompleted);
        Assert.Equal(0, scan.Summary.FilesScanned);

        // Once the disk is there, the same finder scans it.
        Directory.CreateDirectory(missing);
        File.WriteAllText(Path.Combine(missing, "a"), "same");
        File.WriteAllText(Path.Combine(missing, "b"), "same");
        finder.CheckRoots();
        var groups = new List<DuplicateGroup>();
        await foreach (var group in finder.FindAsync())
        {
            groups.Add(group);
        }

        Assert.Single(groups);
    }

    [Fact]
    public void A_root_that_is_a_file_fails_its_check_in_folder_mode()
    {
        using var tree = new TempTree();
        var file = tree.Write("file.txt", "x");

        var finder = new DuplicateFinderBuilder().AddRoot(file).UseFolderMode().Build(); // elsewhere a file is a root on Linux (FileRootTests)
        var ex = Assert.Throws<DirectoryNotFoundException>(finder.CheckRoots);
        Assert.Contains("is a file", ex.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("")]
    [InlineData("   ")]
    [InlineData("a\0b")]
    public void An_empty_or_nul_root_fails(string root)
    {
        Assert.Throws<ArgumentException>(() => new DuplicateFinderBuilder().AddRoot(root).Build());
    }

    [Fact]
    public void Sizes_out_of_range_fail()
    {
        using var tree = new TempTree();
        DuplicateFinderBuilder Builder() => new DuplicateFinderBuilder().AddRoot(tree.Root);

        Assert.Throws<ArgumentOutOfRangeException>(() => Builder().WithMinSize(-1).Build());
        Assert.Throws<ArgumentOutOfRangeException>(() => Builder().WithMinSize(100).WithMaxSize(99).Build());
        Assert.Throws<ArgumentOutOfRangeException>(() => Builder().WithMaxSize(-1).Build());
        Assert.Equal(tree.Root, Builder().WithMinSize(100).WithMaxSize(100).Build().Roots.Single());
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-3)]
    [InlineData(1025)]
    [InlineData(int.MaxValue)]
    public void Parallelism_out_of_range_fails(int degree)
    {
        using var tree = new TempTree();
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => new DuplicateFinderBuilder().AddRoot(tree.Root).WithMaxDegreeOfParallelism(degree).Build());
        Assert.Contains("at least 1 and at most 1024", error.Message, StringComparison.Ordinal);
        Assert.Equal("maxDegreeOfParallelism", error.ParamName);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(1024)]
    public void Parallelism_at_the_bounds_builds(int degree)
    {
        using var tree = new TempTree();
        Assert.NotNull(new DuplicateFinderBuilder().AddRoot(tree.Root).WithMaxDegreeOfParallelism(degree).Build());
    }

    [Fact]
    public void An_unknown_hash_algorithm_fails()
    {
        using var tree = new TempTree();
        Assert.Throws<ArgumentOutOfRangeException>(() => new DuplicateFinderBuilder().AddRoot(tree.Root).UseHashAlgorithm((DuplicateHashAlgorithm)99).Build());
    }

    [Theory]
    [InlineData("[abc")]
    [InlineData("*.[")]
    [InlineData("[")]
    [InlineData("a/[!x")]
    [InlineData("/")]
    public void A_malformed_glob_fails_with_an_argument_exception_naming_it(string glob)
    {
        using var tree = new TempTree();

        var include = Assert.Throws<ArgumentException>(() => new DuplicateFinderBuilder().AddRoot(tree.Root).Include(glob).Build());
        var exclude = Assert.Throws<ArgumentException>(() => new DuplicateFinderBuilder().AddRoot(tree.Root).Exclude(glob).Build());

        // The message must let the user find the bad pattern.
        Assert.Contains($"'{glob}'", include.Message, StringComparison.Ordinal);
        Assert.Contains($"'{glob}'", exclude.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("")]
    [InlineData("  ")]
    public void An_empty_glob_fails(string glob)
    {
        using var tree = new TempTree();
        Assert.Throws<ArgumentException>(() => new DuplicateFinderBuilder().AddRoot(tree.Root).Include(glob).Build());
        Assert.Throws<ArgumentException>(() => new DuplicateFinderBuilder().AddRoot(tree.Root).Exclude(glob).Build());
    }

    [Fact]
    public void Trusting_a_64_bit_hash_fails()
    {
        using var tree = new TempTree();
        DuplicateFinderBuilder Builder() => new DuplicateFinderBuilder().AddRoot(tree.Root).TrustHashes();

        Assert.Throws<ArgumentException>(() => Builder().UseHashAlgorithm(DuplicateHashAlgorithm.XxHash3).Build());
        Assert.NotNull(Builder().UseHashAlgorithm(DuplicateHashAlgorithm.XxHash128).Build());
        Assert.NotNull(Builder().UseHashAlgorithm(DuplicateHashAlgorithm.Sha256).Build());
        Assert.NotNull(Builder().TrustHashes(false).UseHashAlgorithm(DuplicateHashAlgorithm.XxHash3).Build());
    }

    [Fact]
    public void Null_arguments_fail_at_once()
    {
        var builder = new DuplicateFinderBuilder();

        Assert.Throws<ArgumentNullException>(() => builder.AddRoot(null!));
        Assert.Throws<ArgumentNullException>(() => builder.AddRoots(null!));
        Assert.Throws<ArgumentNullException>(() => builder.AddRoots(["/tmp", null!]));
        Assert.Throws<ArgumentNullException>(() => builder.Include(null!));
        Assert.Throws<ArgumentNullException>(() => builder.Exclude(null!));
        Assert.Throws<ArgumentNullException>(() => builder.UseComparer(null!));
        Assert.Throws<ArgumentNullException>(() => builder.ReportProgress(null!));
        Assert.Throws<ArgumentNullException>(() => builder.UseFileEnumerator(null!));
        Assert.Throws<ArgumentNullException>(() => builder.ReportErrors(null!));
        Assert.Throws<ArgumentNullException>(() => builder.UseLogger(null!));
        Assert.Throws<ArgumentNullException>(() => builder.UseBufferPool(null!));
        Assert.Throws<ArgumentNullException>(() => builder.UseCache(null!));
        Assert.Throws<ArgumentNullException>(() => builder.UseCatalog(null!, "m"));
        Assert.Throws<ArgumentNullException>(() => builder.UseDriveTopology(null!));
        Assert.Throws<ArgumentNullException>(() => builder.WithDriveKind(null!, DriveKind.Hdd));
        Assert.Throws<ArgumentNullException>(() => builder.Configure(null!));
        Assert.Empty(builder.Options.DriveKinds);
        Assert.Throws<ArgumentNullException>(() => ComparerStrategies.FromName(null!));
        Assert.Throws<ArgumentNullException>(() => new ScanError(null!, ScanErrorKind.IOError, "m"));
        Assert.Throws<ArgumentNullException>(() => new ScanError("/p", ScanErrorKind.IOError, null!));
    }

    [Fact]
    public void Strategies_are_found_by_name()
    {
        Assert.Same(ComparerStrategies.Hybrid, ComparerStrategies.FromName("HYBRID"));
        Assert.Same(ComparerStrategies.Hashing, ComparerStrategies.FromName("hash"));
        Assert.Same(ComparerStrategies.Hashing, ComparerStrategies.FromName("hashing"));
        Assert.Same(ComparerStrategies.Vectorized, ComparerStrategies.FromName("vectorized"));
        Assert.Same(ComparerStrategies.Bytewise, ComparerStrategies.FromName("Bytewise"));
        Assert.Throws<ArgumentException>(() => ComparerStrategies.FromName("quantum"));
    }

    [Fact]
    public void A_relative_root_is_made_absolute()
    {
        using var tree = new TempTree();
        var relative = Path.GetRelativePath(Environment.CurrentDirectory, tree.Root);
        Assert.False(Path.IsPathRooted(relative));

        var finder = new DuplicateFinderBuilder().AddRoot(relative).Build();

        Assert.Equal([tree.Root], finder.Roots);
    }

    [Fact]
    public void A_root_given_several_ways_is_kept_once()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("sub"));

        var finder = new DuplicateFinderBuilder()
            .AddRoot(tree.Root)
            .AddRoot(tree.Root + "/")
            .AddRoots([tree.PathOf("sub/.."), tree.PathOf("./sub/../")])
            .AddRoot(tree.PathOf("sub"))
            .Build();

        Assert.Equal([tree.Root, tree.PathOf("sub")], finder.Roots);
    }

    [Fact]
    public void The_chosen_strategy_is_exposed()
    {
        using var tree = new TempTree();

        Assert.Same(ComparerStrategies.Hybrid, new DuplicateFinderBuilder().AddRoot(tree.Root).Build().Strategy);
        Assert.Same(ComparerStrategies.Bytewise, new DuplicateFinderBuilder().AddRoot(tree.Root).UseComparer(ComparerStrategies.Bytewise).Build().Strategy);
    }
}
