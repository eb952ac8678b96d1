using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// Regression tests for the review of <c>dedup undo</c> and the journal (issue #38), one per finding: a journal root
/// does not own, or others can write, is refused, and a trash root in the journal that is not the file's trash is left
/// alone (1); files acted on as file arguments or <c>--files-from</c> are undone (2); two undo runs at once keep the
/// journal readable (3); a folder the user deleted after an undo is not recreated (5); a restored name replaced by other
/// bytes is not "already restored" (6); a recreated folder gets its inode flags back (8).
/// </summary>
public sealed class UndoReviewTests
{
    private const int NoDump = 0x40;

    [LinuxFact(RequiresRoot = true)]
    public async Task Roots_undo_refuses_a_journal_another_user_owns_or_others_can_write()
    {
        using var world = UndoWorld.Create(null, seed: 201, WorldShape.Empty);
        WritePair(world, "a", 1);
        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Hard.ActionArguments(world), environment: world.Environment);
        Assert.True(exit == 0, stdout + stderr);
        Assert.Single(JournalLines.Begun(world.Journal));
        var linked = world.Manifest();
        var journal = RawFs.Bytes(world.Journal);

        RawFs.Chown(journal, UndoWorld.OtherUser, UndoWorld.OtherUser);
        var owned = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);
        Assert.True(owned.ExitCode == 2, $"a journal owned by user {UndoWorld.OtherUser}: exit {owned.ExitCode}: {owned.Stdout}{owned.Stderr}");
        Assert.Equal(string.Empty, world.Manifest().DiffFrom(linked));

        RawFs.Chown(journal, 0, 0);
        RawFs.Chmod(journal, 0x1B6); // 666
        var writable = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);
        Assert.True(writable.ExitCode == 2, $"a journal others can write: exit {writable.ExitCode}: {writable.Stdout}{writable.Stderr}");
        Assert.Equal(string.Empty, world.Manifest().DiffFrom(linked));
    }

    /// <remarks>A folder named like a trash (<c>Trash</c>, <c>.Trash-0</c>) is no more the file's trash than any other.</remarks>
    [LinuxTheory(RequiresRoot = true)]
    [InlineData("decoy")]
    [InlineData("Trash")]
    [InlineData(".Trash-0")]
    public async Task A_trash_root_in_the_journal_that_is_not_the_files_trash_is_left_alone(string decoyName)
    {
        using var world = UndoWorld.Create(null, seed: 203, WorldShape.Empty);
        WritePair(world, "a", 2);
        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Trash.ActionArguments(world), environment: world.Environment);
        Assert.True(exit == 0, stdout + stderr);
        var begun = Assert.Single(JournalLines.Begun(world.Journal));
        var trash = begun.GetProperty("trash");
        Assert.Equal(world.Trash, trash.GetProperty("root").GetString());
        var (files, info) = (trash.GetProperty("files").GetString()!, trash.GetProperty("info").GetString()!);

        // The same file (same inode) and its info, in a folder laid out like a trash that is not the one the file goes to.
        var decoy = world.PathOf("outside/" + decoyName);
        Directory.CreateDirectory(Path.Combine(decoy, "files"));
        Directory.CreateDirectory(Path.Combine(decoy, "info"));
        File.Move(Path.Combine(world.Trash, "files", files), Path.Combine(decoy, "files", files));
        File.Move(Path.Combine(world.Trash, "info", info), Path.Combine(decoy, "info", info));
        var decoyInode = RawFs.Status(RawFs.Bytes(Path.Combine(decoy, "files", files)))!.Value.Inode;
        File.WriteAllText(world.Journal, File.ReadAllText(world.Journal).Replace("\"root\":" + JsonSerializer.Serialize(world.Trash), "\"root\":" + JsonSerializer.Serialize(decoy), StringComparison.Ordinal));
        Assert.Equal(decoy, JournalLines.Begun(world.Journal)[0].GetProperty("trash").GetProperty("root").GetString());

        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);

        var said = undo.Stdout + undo.Stderr;
        Assert.DoesNotContain("Unhandled", said, StringComparison.Ordinal);
        Assert.True(RawFs.Status(JournalLines.PathBytes(begun)) is null, "the file came back from a trash that is not its own: " + said);
        Assert.Equal(decoyInode, RawFs.Status(RawFs.Bytes(Path.Combine(decoy, "files", files)))?.Inode);
        Assert.True(undo.ExitCode != 0, $"the step was left alone, yet exit {undo.ExitCode}: {said}");
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task Links_and_trash_of_files_given_as_arguments_or_files_from_are_undone()
    {
        using var world = UndoWorld.Create(null, seed: 205, WorldShape.Empty);
        var (a, b) = WritePair(world, "a", 3);
        var (c, d) = WritePair(world, "c", 4);
        var before = world.Manifest();
        var list = world.PathOf("list");
        File.WriteAllText(list, c + "\n" + d + "\n");

        var link = await CliProcess.RunAsync(["link", "--mode", "hard", "--yes", "--log", world.Journal, a, b], environment: world.Environment);
        Assert.True(link.ExitCode == 0, link.Stdout + link.Stderr);
        var trash = await CliProcess.RunAsync(["delete", "--trash", "--yes", "--log", world.Journal, "--files-from", list], environment: world.Environment);
        Assert.True(trash.ExitCode == 0, trash.Stdout + trash.Stderr);
        Assert.Equal(2, JournalLines.Begun(world.Journal).Count);
        File.Delete(list);

        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);

        Assert.Contains("2 restored", undo.Stdout, StringComparison.Ordinal);
        var failures = new StringBuilder();
        UndoCrashTests.Judge(world, before, "undo of file roots", [undo], failures);
        Assert.True(failures.Length == 0, failures.ToString());
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task Two_undo_runs_at_once_keep_the_journal_readable_and_a_third_reads_it()
    {
        using var world = UndoWorld.Create(null, seed: 207, WorldShape.Empty);
        for (var i = 0; i < 300; i++)
        {
            WritePair(world, "p" + i.ToString("D3", System.Globalization.CultureInfo.InvariantCulture), 1000 + i);
        }

        var before = world.Manifest();
        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Hard.ActionArguments(world), environment: world.Environment);
        Assert.True(exit == 0, stdout + stderr);
        Assert.Equal(300, JournalLines.Begun(world.Journal).Count);

        var both = await Task.WhenAll(
            CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment),
            CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment));

        foreach (var (code, output, errors) in both)
        {
            Assert.True(code is 0 or 1 or 2 && !errors.Contains("Unhandled", StringComparison.Ordinal), $"exit {code}: {output}{errors}");
        }

        var broken = File.ReadAllLines(world.Journal).Select((l, i) => (Line: l, Number: i + 1)).Where(l => l.Line.Length > 0 && !IsJson(l.Line)).ToList();
        Assert.True(broken.Count == 0, "lines that are not JSON: " + string.Join("; ", broken.Select(l => $"{l.Number}: {l.Line[..Math.Min(80, l.Line.Length)]}")));
        var third = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);
        var failures = new StringBuilder();
        UndoCrashTests.Judge(world, before, "a third undo after two at once", [.. both, third], failures);
        Assert.True(failures.Length == 0, failures.ToString());
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task A_folder_restored_by_undo_then_deleted_by_the_user_is_not_recreated_by_a_second_undo()
    {
        using var world = UndoWorld.Create(null, seed: 209, WorldShape.Empty);
        var trashedTop = await TrashAFolderPairAsync(world, flags: false);

        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);
        Assert.True(undo.ExitCode == 0, undo.Stdout + undo.Stderr);
        Assert.True(Directory.Exists(Path.Combine(trashedTop, "sub")), "the first undo restored the folder");
        Directory.Delete(trashedTop, recursive: true);

        var again = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);

        Assert.DoesNotContain("Unhandled", again.Stdout + again.Stderr, StringComparison.Ordinal);
        Assert.False(Directory.Exists(trashedTop), $"the second undo recreated {trashedTop}: {again.Stdout}{again.Stderr}");
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task A_restored_name_rewritten_with_other_bytes_is_not_already_restored_and_gets_no_flags()
    {
        using var world = UndoWorld.Create(null, seed: 211, WorldShape.Empty); // the temp folder's file system keeps inode flags
        var (a, b) = WritePair(world, "a", 6);
        RawFs.AddInodeFlags(RawFs.Bytes(a), NoDump);
        RawFs.AddInodeFlags(RawFs.Bytes(b), NoDump);
        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Hard.ActionArguments(world), environment: world.Environment);
        Assert.True(exit == 0, stdout + stderr);
        var name = JournalLines.PathBytes(Assert.Single(JournalLines.Begun(world.Journal)));
        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);
        Assert.True(undo.ExitCode == 0 && Flags(name) == NoDump, undo.Stdout + undo.Stderr);

        // The user replaces the restored file's bytes (same inode, another size) and drops its flag.
        var other = TempTree.RandomBytes(3333, 99);
        await ProcessRunner.RunAsync("chattr", ["-d", Encoding.UTF8.GetString(name)]);
        File.WriteAllBytes(Encoding.UTF8.GetString(name), other);
        Assert.Equal(0, Flags(name));

        var again = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);

        Assert.False(Regex.IsMatch(again.Stdout, @"\b[1-9][0-9]* already restored"), "the rewritten name was called already restored: " + again.Stdout + again.Stderr);
        Assert.Equal(other, File.ReadAllBytes(Encoding.UTF8.GetString(name)));
        Assert.Equal(0, Flags(name));
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task A_folder_recreated_by_undo_gets_its_inode_flags_back()
    {
        using var world = UndoWorld.Create(null, seed: 213, WorldShape.Empty); // the temp folder's file system keeps inode flags
        var trashedTop = await TrashAFolderPairAsync(world, flags: true);
        Assert.False(Directory.Exists(trashedTop), "the run removed the folder");

        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);

        Assert.True(undo.ExitCode == 0, undo.Stdout + undo.Stderr);
        Assert.True(Flags(RawFs.Bytes(Path.Combine(trashedTop, "sub"))) == NoDump, "the recreated folder has no nodump flag: " + undo.Stdout + undo.Stderr);
    }

    /// <summary>Two equal files <c>scan/{stem}-1.bin</c>, <c>scan/{stem}-2.bin</c>, each its own modification time.</summary>
    private static (string First, string Second) WritePair(UndoWorld world, string stem, int seed)
    {
        var content = TempTree.RandomBytes(4000 + (seed % 1000), seed);
        var names = (world.PathOf($"scan/{stem}-1.bin"), world.PathOf($"scan/{stem}-2.bin"));
        var time = 1_300_000_000_000_000_000L + (seed * 1_000_000_007L);
        foreach (var (name, offset) in (ValueTuple<string, long>[])[(names.Item1, 0), (names.Item2, 86_400_000_000_003)])
        {
            RawFs.WriteFile(RawFs.Bytes(name), content);
            RawFs.SetTimes(RawFs.Bytes(name), time, time + offset);
        }

        return names;
    }

    /// <summary>
    /// Two equal folder trees <c>scan/A</c> and <c>scan/B</c>, each with a <c>sub</c> folder (chattr +d when
    /// <paramref name="flags"/>), trashed with <c>--folders</c>; returns the top folder the run removed.
    /// </summary>
    private static async Task<string> TrashAFolderPairAsync(UndoWorld world, bool flags)
    {
        var content = TempTree.RandomBytes(5000, 7);
        foreach (var top in (string[])["A", "B"])
        {
            RawFs.MakeFolder(RawFs.Bytes(world.PathOf("scan/" + top)));
            RawFs.MakeFolder(RawFs.Bytes(world.PathOf("scan/" + top + "/sub")));
            RawFs.WriteFile(RawFs.Bytes(world.PathOf("scan/" + top + "/sub/y.bin")), content);
            RawFs.WriteFile(RawFs.Bytes(world.PathOf("scan/" + top + "/x.bin")), content[..3000]);
            if (flags)
            {
                RawFs.AddInodeFlags(RawFs.Bytes(world.PathOf("scan/" + top + "/sub")), NoDump);
            }
        }

        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Trash.ActionArguments(world, "--folders"), environment: world.Environment);
        Assert.True(exit == 0, stdout + stderr);
        var trashed = JournalLines.BegunNames(world).Select(n => n.Split('/')[1]).Distinct().ToArray();
        var top1 = Assert.Single(trashed);
        return world.PathOf("scan/" + top1);
    }

    private static bool IsJson(string line)
    {
        try
        {
            using var document = JsonDocument.Parse(line);
            return true;
        }
        catch (JsonException)
        {
            return false;
        }
    }

    private static int Flags(byte[] path)
    {
        using var handle = RawFs.OpenRead(path);
        return RawFs.InodeFlags(handle) & NoDump;
    }
}
