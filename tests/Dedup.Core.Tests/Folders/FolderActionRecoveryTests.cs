using System.Diagnostics;
using System.Globalization;
using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>
/// Folder actions interrupted (#34): the leftovers a killed run leaves in a duplicate folder are removed by the next
/// run, which then acts; an interrupt says what was done.
/// </summary>
public sealed class FolderActionRecoveryTests
{
    private const string LinkLeftover = ".dedup-tmp-0123456789abcdef0123456789abcdef";
    private const string EmptyLeftover = ".dedup-tmp-fedcba9876543210fedcba9876543210";

    private static readonly byte[] One = TempTree.RandomBytes(5000, 21);
    private static readonly byte[] Two = TempTree.RandomBytes(6000, 22);

    /// <summary>Two equal folders, and in the copy what a killed run leaves: a hard link of a kept file (killed before its rename) and an empty file (a clone killed before FICLONE).</summary>
    private static void CopiesWithLeftovers(TempTree tree)
    {
        foreach (var root in new[] { "a_kept", "b_copy" })
        {
            tree.Write($"{root}/album/01.mp3", One);
            tree.Write($"{root}/02.mp3", Two);
        }

        tree.HardLink("a_kept/album/01.mp3", "b_copy/album/" + LinkLeftover);
        tree.Write("b_copy/" + EmptyLeftover, []);
    }

    private static async Task<DuplicateFolderActionPlan> PlanAsync(TempTree tree, Linker linker)
    {
        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        return new DuplicateActionPlanBuilder().UseLinker(linker).Build().PlanFolders(scan.FolderGroups);
    }

    [LinuxFact]
    public async Task The_next_run_removes_what_a_killed_folder_link_left_and_links_the_folder()
    {
        using var tree = new TempTree();
        CopiesWithLeftovers(tree);

        var plan = await PlanAsync(tree, Linkers.HardLink);
        Assert.Equal([tree.PathOf("b_copy/" + EmptyLeftover), tree.PathOf("b_copy/album/" + LinkLeftover)], plan.LeftoverTemporaryFiles);
        var writer = new StringWriter();
        plan.WriteTo(writer);
        Assert.Contains($"remove leftover temporary file {tree.PathOf("b_copy/album/" + LinkLeftover)}", writer.ToString(), StringComparison.Ordinal);
        var report = await plan.ApplyAsync();

        Assert.True(report.Done == 1, string.Join("; ", report.Outcomes));
        Assert.Equal(2, report.TemporaryFilesRemoved);
        Assert.Empty(report.TemporaryFilesLeftAlone);
        Assert.False(File.Exists(tree.PathOf("b_copy/album/" + LinkLeftover)));
        Assert.False(File.Exists(tree.PathOf("b_copy/" + EmptyLeftover)));
        Assert.Equal(TestNative.Inode(tree.PathOf("a_kept/album/01.mp3")), TestNative.Inode(tree.PathOf("b_copy/album/01.mp3")));
        Assert.Equal(2u, TestNative.LinkCount(tree.PathOf("a_kept/album/01.mp3"))); // the kept file and its copy's name
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("a_kept/album/01.mp3")));
    }

    [LinuxFact]
    public async Task A_file_named_like_a_leftover_that_holds_other_bytes_is_left_alone_and_refuses_its_folder()
    {
        using var tree = new TempTree();
        CopiesWithLeftovers(tree);
        var mine = tree.Write("b_copy/.dedup-tmp-00000000000000000000000000000000", "not a copy of anything here");

        var report = await (await PlanAsync(tree, Linkers.Delete)).ApplyAsync();

        Assert.Equal(2, report.TemporaryFilesRemoved);
        var note = Assert.Single(report.TemporaryFilesLeftAlone);
        Assert.StartsWith(mine + ": not provably a replacement", note, StringComparison.Ordinal);
        Assert.Equal("not a copy of anything here", File.ReadAllText(mine));
        var outcome = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("b_copy/album/01.mp3")));
    }

    [Theory]
    [InlineData(".dedup-tmp-0123456789abcdef0123456789abcdef", true)]
    [InlineData(".dedup-tmp-0123456789ABCDEF0123456789ABCDEF", false)]
    [InlineData(".dedup-tmp-0123456789abcdef0123456789abcde", false)]
    [InlineData(".dedup-tmp-0123456789abcdef0123456789abcdef0", false)]
    [InlineData(".dedup-tmp-0123456789abcdef0123456789abcdeg", false)]
    [InlineData(".dedup-tmp-0123456789abcdef0123456789abcdef/", false)]
    [InlineData(".dedup-tmq-0123456789abcdef0123456789abcdef", false)]
    [InlineData("x.dedup-tmp-0123456789abcdef0123456789abcdef", false)]
    public async Task Only_an_exact_temporary_name_is_left_out_of_its_folder(string name, bool leftOut)
    {
        using var tree = new TempTree();
        tree.Write("a_kept/01.mp3", One);
        tree.Write("b_copy/01.mp3", One);
        if (name.EndsWith('/'))
        {
            Directory.CreateDirectory(tree.PathOf("b_copy/" + name)); // a folder of that name is never ours
        }
        else
        {
            tree.Write("b_copy/" + name, "a user's file");
        }

        var (folders, _, _) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(leftOut ? ["a_kept | b_copy"] : [], folders);
    }

    [LinuxFact]
    public async Task An_empty_leftover_beside_a_file_plan_is_removed()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", One);
        tree.Write("b.bin", One);
        var empty = tree.Write(EmptyLeftover, []);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);

        Assert.Equal([empty], plan.LeftoverTemporaryFiles);
        var report = await plan.ApplyAsync();

        Assert.True(report.TemporaryFilesRemoved == 1, string.Join("\n", report.TemporaryFilesLeftAlone));
        Assert.False(File.Exists(empty));
        Assert.Equal(1, report.Done);
    }

    [LinuxFact]
    public async Task Cli_rerun_of_link_folders_removes_the_leftovers_and_succeeds()
    {
        using var tree = new TempTree();
        CopiesWithLeftovers(tree);

        var (dryExit, dryOut, _) = await CliProcess.RunAsync(["link", "--mode", "hard", "--folders", "--dry-run", tree.Root]);
        Assert.Equal(0, dryExit);
        Assert.Contains($"remove leftover temporary file {tree.PathOf("b_copy/" + EmptyLeftover)}", dryOut, StringComparison.Ordinal);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["link", "--mode", "hard", "--folders", "--yes", tree.Root]);

        Assert.True(exit == 0, stderr + stdout);
        Assert.Contains("folders: 1 done, 0 skipped, 0 failed, 2 leftover temporary files removed", stdout, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFiles(tree.PathOf("b_copy"), ".dedup-tmp-*", SearchOption.AllDirectories));
        Assert.Equal(TestNative.Inode(tree.PathOf("a_kept/02.mp3")), TestNative.Inode(tree.PathOf("b_copy/02.mp3")));
    }

    [LinuxFact]
    public async Task Ctrl_C_during_folder_actions_says_how_many_folders_were_done()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(1000, 23);
        const int Copies = 600;
        var longName = new string('x', 200); // long verbose lines: the output pipe fills long before the last folder
        for (var i = 0; i <= Copies; i++)
        {
            tree.Write($"{i:D3}-{longName}/f.bin", content);
        }

        // Through env --default-signal: a test run started without job control inherits SIGINT ignored (see ReportFileTests).
        var start = new ProcessStartInfo("env") { RedirectStandardError = true, RedirectStandardOutput = true };
        foreach (var arg in new[] { "--default-signal=INT", CliProcess.Dotnet, CliProcess.Dll, "delete", "--folders", "--yes", "--verbose", tree.Root })
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var stderr = process.StandardError.ReadToEndAsync();
        string? line;
        while ((line = await process.StandardOutput.ReadLineAsync()) is not null && !line.StartsWith("Done: Delete", StringComparison.Ordinal))
        {
        }

        Assert.NotNull(line); // a folder was deleted, and the CLI waits on the unread output well before the last one
        ProcessRunner.RunChecked("kill", "-INT", process.Id.ToString(CultureInfo.InvariantCulture));
        var stdout = await process.StandardOutput.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(120));
        await process.WaitForExitAsync(timeout.Token);

        var message = await stderr;
        Assert.True(process.ExitCode == 130, message + stdout);
        var gone = Copies + 1 - Directory.GetDirectories(tree.Root).Length;
        Assert.InRange(gone, 1, Copies - 1);
        Assert.Contains($"dedup: interrupted: {gone} done, {Copies - gone} not started; run the same command again to finish", message, StringComparison.Ordinal);
        Assert.Contains($"folders: {gone} done, ", stdout, StringComparison.Ordinal);
    }
}
