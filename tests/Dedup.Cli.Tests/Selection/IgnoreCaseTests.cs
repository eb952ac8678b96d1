using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Selection;

/// <summary><c>--ignore-case</c> (#36 point 9, fd's name): globs match whatever the letters' case; and the progress line's percentage.</summary>
public sealed class IgnoreCaseTests
{
    [Fact]
    public async Task Ignore_case_makes_an_include_glob_take_upper_case_names()
    {
        using var tree = new TempTree();
        tree.Write("photos/IMG.JPG", "same");
        tree.Write("photos/x.jpg", "same");

        var (plainExit, plain, _) = await CliProcess.RunAsync(["find", "--include", "*.jpg", tree.PathOf("photos")]);
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--ignore-case", "--include", "*.jpg", tree.PathOf("photos")]);

        Assert.Equal(0, plainExit);
        Assert.DoesNotContain("IMG.JPG", plain, StringComparison.Ordinal);
        Assert.Equal(0, exit);
        Assert.Contains(tree.PathOf("photos/IMG.JPG"), stdout, StringComparison.Ordinal);
        Assert.Contains(tree.PathOf("photos/x.jpg"), stdout, StringComparison.Ordinal);
        Assert.Empty(stderr);
    }

    [LinuxFact]
    public async Task A_literal_path_in_another_case_is_not_warned_of_when_case_is_ignored()
    {
        using var tree = new TempTree();
        tree.Write("photos/Tmp/b", "same");
        tree.Write("photos/a", "same");

        var (_, _, sensitive) = await CliProcess.RunAsync(["find", "--exclude", "tmp/b", tree.PathOf("photos")]);
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--ignore-case", "--exclude", "tmp/b", tree.PathOf("photos")]);

        Assert.Contains("dedup: warning: --exclude 'tmp/b' matches nothing", sensitive, StringComparison.Ordinal);
        Assert.Equal(0, exit);
        Assert.Empty(stderr);
        Assert.DoesNotContain("Tmp/b", stdout, StringComparison.Ordinal); // excluded: the only other copy is gone, so no group
    }

    [Theory]
    [InlineData(null, null, 0, 0, null)]
    [InlineData(100L, 1000L, 40L, 250L, 25)]
    [InlineData(3L, 999L, 3L, 998L, 99)] // rounded down: 100 only when done
    [InlineData(3L, 999L, 3L, 999L, 100)]
    [InlineData(4L, 0L, 1L, 0L, 25)] // empty files only: by files
    [InlineData(0L, 0L, 0L, 0L, 100)] // nothing to compare
    public void The_progress_line_shows_the_per_cent_compared_once_the_totals_are_known(long? files, long? bytes, long filesCompared, long bytesCompared, int? percent)
    {
        var progress = new ScanProgress { Phase = ScanPhase.Comparing, FilesToCompare = files, BytesToCompare = bytes, FilesCompared = filesCompared, BytesCompared = bytesCompared };

        Assert.Equal(percent, ProgressDisplay.Percent(progress));
    }
}
