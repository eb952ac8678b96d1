using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>The real CLI: <c>dedup find --folders</c> in text, JSON and CSV.</summary>
public sealed class FindFoldersCliTests
{
    private static void Tree(TempTree tree)
    {
        var one = TempTree.RandomBytes(5000, 1);
        var two = TempTree.RandomBytes(6000, 2);
        foreach (var root in new[] { "music", "backup" })
        {
            tree.Write($"{root}/album/01.mp3", one);
            tree.Write($"{root}/album/02.mp3", two);
        }

        tree.Write("loose/song.mp3", one);
        tree.Write("partial/album/01.mp3", one);
        tree.Write("partial/album/02.mp3", two);
        tree.Write("partial/album/extra.txt", "extra");
    }

    [Fact]
    public async Task Text_lists_the_folder_group_then_the_remaining_file_groups()
    {
        using var tree = new TempTree();
        Tree(tree);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--folders", tree.Root]);

        Assert.True(exit == 0, stderr);
        Assert.Contains($"2 folders of 10.7 KiB each (2 files, 11000 bytes)\n  {tree.PathOf("backup")}/\n  {tree.PathOf("music")}/\n", stdout, StringComparison.Ordinal);
        Assert.Contains("only in second: album/extra.txt", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain(tree.PathOf("music/album/01.mp3"), stdout, StringComparison.Ordinal); // inside the copy
    }

    [Fact]
    public async Task Json_has_folderGroups_with_files_and_bytes()
    {
        using var tree = new TempTree();
        Tree(tree);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--folders", "--format", "json", tree.Root]);

        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        var folderGroups = json.RootElement.GetProperty("folderGroups").EnumerateArray().ToList();
        var exact = Assert.Single(folderGroups, g => !g.TryGetProperty("differences", out _));
        Assert.Equal([tree.PathOf("backup"), tree.PathOf("music")], exact.GetProperty("folders").EnumerateArray().Select(f => f.GetProperty("path").GetString()));
        Assert.Equal(2, exact.GetProperty("files").GetInt64());
        Assert.Equal(11000, exact.GetProperty("bytes").GetInt64());
        var partial = Assert.Single(folderGroups, g => g.TryGetProperty("differences", out _));
        Assert.Equal("onlyInSecond", partial.GetProperty("differences")[0].GetProperty("kind").GetString());
        foreach (var group in json.RootElement.GetProperty("groups").EnumerateArray())
        {
            Assert.DoesNotContain(group.GetProperty("files").EnumerateArray(), f => f.GetProperty("path").GetString()!.StartsWith(tree.PathOf("music") + "/", StringComparison.Ordinal));
        }
    }

    [Fact]
    public async Task Csv_has_a_row_per_folder_and_difference_then_the_file_groups_numbered_on()
    {
        using var tree = new TempTree();
        Tree(tree);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--folders", "--format", "csv", tree.Root]);

        Assert.True(exit == 0, stderr);
        var (backup, music, partial) = (tree.PathOf("backup"), tree.PathOf("music"), tree.PathOf("partial"));
        Assert.Equal(
            $"""
            group,size,path,hardlink_of,kind,files,bytes
            1,,{backup},,exact,2,11000
            1,,{music},,exact,2,11000
            2,,{backup},,partial,2,11000
            2,,{partial},,partial,2,11000
            2,,album/extra.txt,,onlyInSecond,,
            3,5000,{backup}/album/01.mp3,,file,,
            3,5000,{tree.PathOf("loose/song.mp3")},,file,,
            3,5000,{partial}/album/01.mp3,,file,,
            4,6000,{backup}/album/02.mp3,,file,,
            4,6000,{partial}/album/02.mp3,,file,,

            """.ReplaceLineEndings("\n"),
            stdout.ReplaceLineEndings("\n"));
    }

    [Fact]
    public async Task Csv_without_folders_keeps_its_four_columns()
    {
        using var tree = new TempTree();
        Tree(tree);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", "csv", tree.Root]);

        Assert.True(exit == 0, stderr);
        var lines = stdout.ReplaceLineEndings("\n").TrimEnd('\n').Split('\n');
        Assert.Equal("group,size,path,hardlink_of", lines[0]);
        Assert.All(lines.Skip(1), line => Assert.Equal(3, line.Count(c => c == ',')));
        Assert.Contains($"1,5000,{tree.PathOf("backup/album/01.mp3")},", lines);
    }

    [Fact]
    public async Task Folders_with_media_is_a_usage_error()
    {
        using var tree = new TempTree();

        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--folders", "--media", tree.Root]);

        Assert.Equal(2, exit);
        Assert.Contains("--folders", stderr, StringComparison.Ordinal);
    }
}
