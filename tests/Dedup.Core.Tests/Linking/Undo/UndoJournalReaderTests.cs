using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// <see cref="JournalReader"/> field by field: what a <c>begun</c>, <c>run</c> and <c>undone</c> line gives undo, and
/// the exact refusal for each field that is missing or of the wrong kind (undo never guesses what a line meant).
/// </summary>
public sealed class UndoJournalReaderTests
{
    private const string Run = "{\"version\":2,\"status\":\"run\",\"run\":\"r\",\"kind\":\"hardLink\",\"roots\":[{\"path\":\"/data\",\"device\":7,\"inode\":8}]}";
    private const string Before = "\"before\":{\"device\":1,\"inode\":2,\"size\":3,\"mtimeNs\":4,\"mode\":33188,\"uid\":1000,\"gid\":100,\"atimeNs\":5,\"flags\":16}";

    private static JournalReader Read(TempTree logs, string text) => JournalReader.Read(logs.Write("journal.jsonl", text));

    private static string Begun(string fields) => "{\"version\":2,\"status\":\"begun\",\"run\":\"r\",\"seq\":3,\"kind\":\"hardLink\",\"path\":\"/data/b.bin\"," + fields + "}";

    private static string Refusal(TempTree logs, string text)
    {
        var journal = logs.Write("journal.jsonl", text);
        var error = Assert.Throws<InvalidDataException>(() => JournalReader.Read(journal));
        var prefix = $"{journal}: ";
        Assert.StartsWith(prefix, error.Message, StringComparison.Ordinal);
        return error.Message[prefix.Length..];
    }

    [Fact]
    public void A_begun_line_gives_every_field_undo_needs()
    {
        using var logs = new TempTree();
        var reader = Read(logs, Run + "\n" + Begun(Before + ",\"kept\":\"/data/a.bin\",\"keptFile\":{\"device\":1,\"inode\":9,\"size\":3,\"mtimeNs\":6},\"after\":{\"device\":1,\"inode\":9,\"size\":3,\"mtimeNs\":6},\"target\":\"a.bin\"") + "\n");

        var run = Assert.Single(reader.Runs);
        Assert.Equal(("r", "hardLink", 1), (run.Id, run.Kind, run.Line));
        var root = Assert.Single(run.Roots);
        Assert.Equal("/data", root.Path.ToString());
        Assert.Equal(new FileIdentity(7, 8), root.Identity);
        Assert.Equal(default(FileIdentity), root.FolderIdentity);
        var step = Assert.Single(reader.Steps);
        Assert.Equal(("r", 3L, "hardLink", "/data/b.bin", 2), (step.Run, step.Seq, step.Kind, step.Path, step.Line));
        Assert.Equal("/data/a.bin", step.Kept);
        Assert.Equal(new JournalFile(1, 9, 3, 6), step.KeptFile);
        Assert.Equal(new JournalFile(1, 9, 3, 6), step.After);
        Assert.Equal("a.bin", step.Target);
        Assert.Null(step.Trash);
        Assert.Equal(new JournalFile(1, 2, 3, 4), step.Before.File);
        Assert.Equal((33188u, 1000u, 100u, 5L, 16), (step.Before.Mode, step.Before.Uid, step.Before.Gid, step.Before.AtimeNs, step.Before.Flags));
        Assert.True(step.Before.HasMetadata);
        Assert.Empty(step.Before.Xattrs);
        Assert.Empty(reader.Notes);
        Assert.Empty(reader.Undone);
        Assert.True(reader.EndsWithNewline);
    }

    [Fact]
    public void Optional_fields_left_out_are_absent_not_made_up()
    {
        using var logs = new TempTree();
        var step = Assert.Single(Read(logs, Begun("\"before\":{\"device\":1,\"inode\":2,\"size\":3,\"mtimeNs\":4}")).Steps);

        Assert.Null(step.Kept);
        Assert.Null(step.KeptFile);
        Assert.Null(step.After);
        Assert.Null(step.Target);
        Assert.Equal((0u, 0u, 0u, 0L, 0), (step.Before.Mode, step.Before.Uid, step.Before.Gid, step.Before.AtimeNs, step.Before.Flags));
        Assert.False(step.Before.HasMetadata);
    }

    [Theory]
    [InlineData("\"mode\":1,\"uid\":1,\"gid\":1")]
    [InlineData("\"mode\":1,\"uid\":1,\"atimeNs\":1")]
    [InlineData("\"mode\":1,\"gid\":1,\"atimeNs\":1")]
    [InlineData("\"uid\":1,\"gid\":1,\"atimeNs\":1")]
    public void Metadata_counts_as_recorded_only_with_mode_owner_group_and_access_time_all_there(string fields)
    {
        using var logs = new TempTree();
        var step = Assert.Single(Read(logs, Begun("\"before\":{\"device\":1,\"inode\":2,\"size\":3,\"mtimeNs\":4," + fields + "}")).Steps);

        Assert.False(step.Before.HasMetadata);
    }

    [Fact]
    public void Extended_attributes_and_a_name_not_in_utf8_keep_their_exact_bytes()
    {
        using var logs = new TempTree();
        // "/data/b\xff.bin" as bytes; the text beside it is a lossy rendering undo must not use.
        var pathBytes = Convert.ToBase64String([.. "/data/b"u8, 0xFF, .. ".bin"u8]);
        var step = Assert.Single(Read(logs, "{\"version\":2,\"status\":\"begun\",\"run\":\"r\",\"seq\":1,\"kind\":\"hardLink\",\"path\":\"/data/b?.bin\",\"pathBytes\":\"" + pathBytes
            + "\",\"before\":{\"device\":1,\"inode\":2,\"size\":3,\"mtimeNs\":4,\"xattrs\":{\"user.a\":\"AAEC\",\"user.b\":\"\"}}}\n").Steps);

        Assert.Equal(Dedup.Core.Paths.KernelNames.GetString([.. "/data/b"u8, 0xFF, .. ".bin"u8]), step.Path);
        Assert.Equal(["user.a", "user.b"], step.Before.Xattrs.Select(x => x.Name));
        Assert.Equal([0, 1, 2], step.Before.Xattrs[0].Value);
        Assert.Empty(step.Before.Xattrs[1].Value);
    }

    [Fact]
    public void A_trash_line_gives_its_folder_and_its_two_names()
    {
        using var logs = new TempTree();
        var step = Assert.Single(Read(logs, Begun(Before + ",\"trash\":{\"root\":\"/home/u/.local/share/Trash\",\"files\":\"b.bin\",\"info\":\"b.bin.trashinfo\"}") + "\n").Steps);

        Assert.Equal(new JournalTrash("/home/u/.local/share/Trash", "b.bin", "b.bin.trashinfo"), step.Trash);
    }

    [Fact]
    public void A_file_roots_folder_identity_is_read_when_the_run_line_has_it()
    {
        using var logs = new TempTree();
        var reader = Read(logs, "{\"version\":2,\"status\":\"run\",\"run\":\"r\",\"kind\":\"hardLink\",\"roots\":[{\"path\":\"/data/b.bin\",\"device\":7,\"inode\":8,\"folderDevice\":7,\"folderInode\":6},{\"path\":\"/other\",\"device\":7,\"inode\":9}]}\n");

        var roots = Assert.Single(reader.Runs).Roots;
        Assert.Equal(new FileIdentity(7, 6), roots[0].FolderIdentity);
        Assert.Equal(new FileIdentity(7, 8), roots[0].Identity);
        Assert.Equal(default(FileIdentity), roots[1].FolderIdentity);
    }

    [Fact]
    public void Undone_lines_gather_every_identity_given_to_a_step_and_outcomes_are_ignored()
    {
        using var logs = new TempTree();
        var reader = Read(logs, """
            {"version":2,"status":"undone","run":"r","seq":3,"restored":{"device":1,"inode":10}}
            {"version":2,"status":"done","run":"r","seq":3}
            {"version":2,"status":"undone","run":"r","seq":3,"restored":{"device":1,"inode":11}}
            {"version":2,"status":"undone","run":"r","seq":4,"restored":{"device":2,"inode":12}}
            {"version":2,"status":"somethingNewer"}

            """);

        Assert.Equal([(1UL, 10UL), (1UL, 11UL)], reader.Undone[("r", 3)]);
        Assert.Equal([(2UL, 12UL)], reader.Undone[("r", 4)]);
        Assert.Equal(2, reader.Undone.Count);
        Assert.Empty(reader.Steps);
        Assert.Empty(reader.Runs);
    }

    [Theory]
    [InlineData("", true)]
    [InlineData("{\"version\":2,\"status\":\"done\"}\n", true)]
    [InlineData("{\"version\":2,\"status\":\"done\"}\n{\"version\":2,\"st", false)]
    public void Whether_the_journal_ends_with_a_line_end_is_known_to_the_writer(string text, bool endsWithNewline)
    {
        using var logs = new TempTree();

        Assert.Equal(endsWithNewline, Read(logs, text).EndsWithNewline);
    }

    [Fact]
    public void Blank_lines_of_spaces_tabs_and_carriage_returns_are_skipped_without_a_note()
    {
        using var logs = new TempTree();
        var reader = Read(logs, "\n \t\r\n" + Run + "\n\r\n");

        Assert.Single(reader.Runs);
        Assert.Empty(reader.Notes);
    }

    [Fact]
    public void A_torn_line_in_the_middle_is_noted_and_a_damaged_last_line_too()
    {
        using var logs = new TempTree();
        var reader = Read(logs, Run + "\n{\"version\":2,\"sta\n" + Run + "\n{oops}\n");

        Assert.Equal(["line 2 was cut short (an interrupted write) and is ignored", "line 4 was cut short (an interrupted write) and is ignored"], reader.Notes);
        Assert.Equal(2, reader.Runs.Count);
        Assert.Equal(3, reader.Runs[1].Line);
    }

    [Fact]
    public void Version_1_runs_end_at_their_interrupted_line_or_at_a_newer_line()
    {
        using var logs = new TempTree();
        var reader = Read(logs, """
            {"version":1,"status":"done"}
            {"version":1,"status":"interrupted"}
            {"version":1,"status":"skipped"}
            {"version":1}
            {"version":2,"status":"done"}
            {"version":1,"status":"done"}

            """);

        Assert.Equal(
            [
                "lines 1-2: logged before format 2 (1 action done); cannot be undone",
                "lines 3-4: logged before format 2 (0 actions done); cannot be undone",
                "lines 6-6: logged before format 2 (1 action done); cannot be undone",
            ],
            reader.Notes);
    }

    [Theory]
    [InlineData("[1]", "not a JSON object")]
    [InlineData("\"text\"", "not a JSON object")]
    [InlineData("{\"status\":\"run\"}", "no whole number \"version\"")]
    [InlineData("{\"version\":\"2\"}", "no whole number \"version\"")]
    [InlineData("{\"version\":4294967298}", "format version 2147483647 is not one this dedup reads (1 or 2); use a newer dedup")]
    [InlineData("{\"version\":-4294967298}", "format version -2147483648 is not one this dedup reads (1 or 2); use a newer dedup")]
    [InlineData("{\"version\":2}", "no text \"status\"")]
    [InlineData("{\"version\":2,\"status\":\"run\",\"run\":\"r\",\"kind\":\"hardLink\"}", "a run line without \"roots\"")]
    [InlineData("{\"version\":2,\"status\":\"run\",\"run\":\"r\",\"kind\":\"hardLink\",\"roots\":{}}", "a run line without \"roots\"")]
    [InlineData("{\"version\":2,\"status\":\"run\",\"run\":\"r\",\"kind\":\"hardLink\",\"roots\":[{\"path\":\"/d\",\"device\":-1,\"inode\":1}]}", "no whole number \"device\"")]
    [InlineData("{\"version\":2,\"status\":\"run\",\"run\":\"r\",\"kind\":\"hardLink\",\"roots\":[{\"path\":\"/d\",\"device\":1,\"inode\":1,\"folderDevice\":1}]}", "no whole number \"folderInode\"")]
    [InlineData("{\"version\":2,\"status\":\"run\",\"run\":\"r\",\"kind\":\"hardLink\",\"roots\":[{\"path\":\"d\",\"device\":1,\"inode\":1}]}", "\"path\" is not an absolute path without . or .. (d)")]
    [InlineData("{\"version\":2,\"status\":\"undone\",\"run\":\"r\",\"seq\":1}", "no object \"restored\"")]
    [InlineData("{\"version\":2,\"status\":\"undone\",\"run\":\"r\",\"seq\":1,\"restored\":[]}", "no object \"restored\"")]
    [InlineData("{\"version\":2,\"status\":\"undone\",\"run\":\"r\",\"seq\":1.5,\"restored\":{\"device\":1,\"inode\":1}}", "no whole number \"seq\"")]
    [InlineData("{\"version\":2,\"status\":\"undone\",\"run\":1,\"seq\":1,\"restored\":{\"device\":1,\"inode\":1}}", "no text \"run\"")]
    [InlineData("{\"version\":2,\"status\":\"undone\",\"run\":\"r\",\"seq\":1,\"restored\":{\"device\":1}}", "no whole number \"inode\"")]
    public void Each_wrong_field_is_named_with_its_line(string line, string what)
    {
        using var logs = new TempTree();

        Assert.Equal($"line 2 is not a journal line: {what}", Refusal(logs, "{\"version\":2,\"status\":\"done\"}\n" + line + "\n{\"version\":2,\"status\":\"done\"}\n"));
    }

    [Theory]
    [InlineData("\"before\":{\"device\":1,\"inode\":2,\"size\":3,\"mtimeNs\":4,\"xattrs\":[]}", "\"before.xattrs\" is not an object")]
    [InlineData("\"before\":{\"device\":1,\"inode\":2,\"size\":3,\"mtimeNs\":4,\"xattrs\":{\"user.a\":\"!!\"}}", "\"before.xattrs.user.a\" is not base64")]
    [InlineData("\"before\":{\"device\":1,\"inode\":2,\"size\":3,\"mtimeNs\":4,\"xattrs\":{\"user.a\":5}}", "\"before.xattrs.user.a\" is not base64")]
    [InlineData("\"before\":{\"device\":1,\"inode\":2,\"size\":3}", "no whole number \"mtimeNs\"")]
    [InlineData("\"before\":{\"device\":1,\"inode\":2,\"size\":3,\"mtimeNs\":4,\"mode\":\"644\"}", "no whole number \"mode\"")]
    [InlineData(Before + ",\"pathBytes\":\"@@\"", "\"pathBytes\" is not base64")]
    [InlineData(Before + ",\"kept\":\"a.bin\"", "\"kept\" is not an absolute path without . or .. (a.bin)")]
    [InlineData(Before + ",\"kept\":\"/data/a.bin\",\"keptFile\":{\"device\":1}", "no whole number \"inode\"")]
    [InlineData(Before + ",\"target\":7", "no text \"target\"")]
    [InlineData(Before + ",\"trash\":{\"root\":\"Trash\",\"files\":\"b\",\"info\":\"b.trashinfo\"}", "\"root\" is not an absolute path without . or .. (Trash)")]
    [InlineData(Before + ",\"trash\":{\"root\":\"/Trash\",\"info\":\"b.trashinfo\"}", "no text \"files\"")]
    [InlineData(Before + ",\"trash\":{\"root\":\"/Trash\",\"files\":\"b\"}", "no text \"info\"")]
    public void Each_wrong_field_of_a_begun_line_is_named(string fields, string what)
    {
        using var logs = new TempTree();

        Assert.Equal($"line 1 is not a journal line: {what}", Refusal(logs, Begun(fields) + "\n"));
    }

    [Theory]
    [InlineData("/data/b.bin/.")]
    [InlineData("/data/b\u0000.bin")]
    public void A_path_ending_in_a_dot_or_holding_a_nul_is_refused(string path)
    {
        using var logs = new TempTree();
        var line = Begun(Before).Replace("\"path\":\"/data/b.bin\"", "\"path\":" + System.Text.Json.JsonSerializer.Serialize(path), StringComparison.Ordinal);

        Assert.StartsWith("line 1 is not a journal line: \"path\" is not an absolute path without . or ..", Refusal(logs, line + "\n"), StringComparison.Ordinal);
    }

    [Fact]
    public void Relative_trash_names_and_link_texts_are_kept_as_written()
    {
        using var logs = new TempTree();
        var step = Assert.Single(Read(logs, Begun(Before + ",\"target\":\"../a.bin\",\"trash\":{\"root\":\"/T\",\"files\":\"b\",\"info\":\"b.trashinfo\"}") + "\n").Steps);

        Assert.Equal("../a.bin", step.Target);
        Assert.Equal("b", step.Trash!.Files);
    }
}
