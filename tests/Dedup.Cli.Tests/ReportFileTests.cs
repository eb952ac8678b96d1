using Dedup.Core;
using System.Globalization;
using System.Diagnostics;
using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>The real CLI's report: stable bytes run after run, replaced only when complete, kept when interrupted.</summary>
public sealed class ReportFileTests
{
    [Fact]
    public async Task The_same_tree_gives_byte_identical_reports_in_every_format()
    {
        using var tree = ManyGroups();
        foreach (var format in new[] { "text", "json", "csv" })
        {
            var outputs = new List<string>();
            for (var run = 0; run < 3; run++)
            {
                var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", format, "--hidden", tree.Root]);
                Assert.True(exit == 0, stderr);
                outputs.Add(stdout);
            }

            Assert.All(outputs, o => Assert.Equal(outputs[0], o));
            Assert.Contains(format == "csv" ? "line\nbreak" : "line\\nbreak", outputs[0], StringComparison.Ordinal); // escaped, or exact in CSV
        }
    }

    [LinuxFact]
    public async Task Json_and_csv_stay_byte_identical_when_a_rescan_reads_less_and_stats_add_what_it_cost()
    {
        // The second run settles its files from the cache and reads less: what a run costs is not in the report.
        using var tree = ManyGroups();
        var cache = tree.PathOf("cache.db");
        await Task.Delay(TimeSpan.FromMilliseconds(1200)); // past the cache's racy window, so that the rescan hits
        foreach (var format in new[] { "json", "csv" })
        {
            string[] args = ["find", "--format", format, "--cache", cache, tree.PathOf("data")];
            var first = await CliProcess.RunAsync(args);
            var second = await CliProcess.RunAsync(args);
            Assert.True(first.ExitCode == 0 && second.ExitCode == 0, first.Stderr + second.Stderr);
            Assert.Equal(first.Stdout, second.Stdout);
        }

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", "json", "--stats", "--cache", cache, tree.PathOf("data")]);
        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        var summary = json.RootElement.GetProperty("summary");
        Assert.True(summary.GetProperty("bytesRead").GetInt64() >= 0);
        Assert.True(summary.GetProperty("cache").GetProperty("hits").GetInt64() > 0);
        (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--stats", "--cache", cache, tree.PathOf("data")]);
        Assert.True(exit == 0, stderr);
        Assert.Contains(" read, ", stdout, StringComparison.Ordinal);
        Assert.Contains("; cache: ", stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Groups_are_ordered_by_wasted_bytes_by_default_and_by_the_sort_asked_for()
    {
        using var tree = new TempTree();
        tree.Write("big/a", TempTree.RandomBytes(3000, 1));
        tree.Write("big/b", TempTree.RandomBytes(3000, 1));
        tree.Write("many/a", TempTree.RandomBytes(1100, 2));
        tree.Write("many/b", TempTree.RandomBytes(1100, 2));
        tree.Write("many/c", TempTree.RandomBytes(1100, 2));
        tree.Write("many/d", TempTree.RandomBytes(1100, 2));
        tree.Write("aaa/a", TempTree.RandomBytes(500, 3));
        tree.Write("aaa/b", TempTree.RandomBytes(500, 3));

        Assert.Equal(["many", "big", "aaa"], await FirstFoldersAsync(tree)); // 3300, 3000 and 500 bytes wasted
        Assert.Equal(["big", "many", "aaa"], await FirstFoldersAsync(tree, "--sort", "size"));
        Assert.Equal(["many", "aaa", "big"], await FirstFoldersAsync(tree, "--sort", "count")); // 4 copies, then 2 and 2 by path
        Assert.Equal(["aaa", "big", "many"], await FirstFoldersAsync(tree, "--sort", "path"));

        var (exit, stdout, _) = await CliProcess.RunAsync(["find", "--summary", "--format", "json", tree.Root]);
        Assert.Equal(0, exit);
        using var summaryOnly = JsonDocument.Parse(stdout);
        Assert.Equal(0, summaryOnly.RootElement.GetProperty("groups").GetArrayLength());
        Assert.Equal(3, summaryOnly.RootElement.GetProperty("summary").GetProperty("groups").GetInt32());
    }

    [Fact]
    public async Task An_existing_report_is_replaced_only_by_a_complete_one()
    {
        using var tree = ManyGroups();
        var report = tree.PathOf("out/report.json");
        tree.Write("out/report.json", "the previous report");

        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--format", "json", "-o", report, tree.PathOf("data")]);

        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(report));
        Assert.True(json.RootElement.GetProperty("groups").GetArrayLength() > 0);
        Assert.Equal(["report.json"], Directory.GetFiles(tree.PathOf("out")).Select(Path.GetFileName));
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task A_report_to_a_device_is_written_to_it_and_leaves_the_device_in_place()
    {
        // A private /dev/null (the same device numbers) in the test's folder: renaming over it, as a regular report
        // is published, would have replaced the device node with a plain file (it did, to /dev/null, before).
        using var tree = ManyGroups();
        var device = tree.PathOf("out/null");
        Directory.CreateDirectory(tree.PathOf("out"));
        TempTree.Run("mknod", device, "c", "1", "3");

        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--format", "json", "-o", device, tree.PathOf("data")]);

        Assert.True(exit == 0, stderr);
        Assert.Equal("character special file", FileType(device));
        Assert.Equal(["null"], Directory.GetFileSystemEntries(tree.PathOf("out")).Select(Path.GetFileName)); // no temporary left
    }

    [LinuxFact]
    public async Task A_report_to_a_fifo_reaches_its_reader_and_the_fifo_stays()
    {
        using var tree = ManyGroups();
        Directory.CreateDirectory(tree.PathOf("out"));
        var fifo = tree.PathOf("out/pipe");
        TempTree.Run("mkfifo", fifo);
        var reader = Task.Run(() => File.ReadAllText(fifo)); // blocks until the CLI opens the other end

        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--format", "json", "-o", fifo, tree.PathOf("data")]);

        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(await reader.WaitAsync(TimeSpan.FromSeconds(60)));
        Assert.True(json.RootElement.GetProperty("groups").GetArrayLength() > 0);
        Assert.Equal("fifo", FileType(fifo));
    }

    private static string FileType(string path) => ProcessRunner.RunChecked("stat", ["-c", "%F", path]).Trim();

    [LinuxFact]
    public async Task Ctrl_C_leaves_the_previous_report_untouched_and_says_so()
    {
        using var tree = new TempTree();
        tree.Write("out/report.txt", "the previous report");
        var before = await File.ReadAllBytesAsync(tree.PathOf("out/report.txt"));

        // Two equal 64 GiB sparse files: comparing them takes far longer than the moment before the interrupt.
        Directory.CreateDirectory(tree.PathOf("data"));
        foreach (var name in new[] { "a.img", "b.img" })
        {
            using var file = File.Create(tree.PathOf("data/" + name));
            file.SetLength(64L << 30);
        }

        // Through env --default-signal: a test run started in the background by a shell without job control inherits
        // SIGINT ignored, and so would the CLI, which the runtime then never tells of the signal.
        var start = new ProcessStartInfo("env") { RedirectStandardError = true, RedirectStandardOutput = true };
        foreach (var arg in new[] { "--default-signal=INT", CliProcess.Dotnet, CliProcess.Dll, "find", "-o", tree.PathOf("out/report.txt"), tree.PathOf("data") })
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var stderr = process.StandardError.ReadToEndAsync();
        await Task.Delay(TimeSpan.FromSeconds(2)); // let it start reading; a trigger, not a measurement
        Assert.False(process.HasExited, "the scan ended before it could be interrupted");
        ProcessRunner.RunChecked("kill", "-INT", process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture));
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        await process.WaitForExitAsync(timeout.Token);

        Assert.Equal(130, process.ExitCode);
        Assert.Equal(before, await File.ReadAllBytesAsync(tree.PathOf("out/report.txt")));
        Assert.Equal(["report.txt"], Directory.GetFiles(tree.PathOf("out")).Select(Path.GetFileName));
        var message = await stderr;
        Assert.True(message.Contains("interrupted", StringComparison.Ordinal), message);
        Assert.Contains("interrupted", message, StringComparison.Ordinal);
        Assert.Contains("left as it was", message, StringComparison.Ordinal);
    }

    [LinuxFact]
    public async Task The_report_lists_every_file_exactly_as_the_library_found_it()
    {
        // The CLI holds its groups in a compact form until the scan ends (#17): long names (past one 32k-character
        // buffer), hard links and a file at the top of the root must come back as the library reported them.
        using var tree = new TempTree();
        for (var i = 0; i < 300; i++)
        {
            var content = TempTree.RandomBytes(64 + i, i);
            var name = $"{i:D3}-{new string('n', 120)}";
            tree.Write($"a/{i % 7}/{name}", content);
            tree.Write(i % 3 == 0 ? $"top{i}" : $"b/{i % 5}/{name}", content);
            if (i % 10 == 0)
            {
                tree.HardLink($"a/{i % 7}/{name}", $"c/link{i}");
            }
        }

        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        var expected = new Dictionary<string, string>(StringComparer.Ordinal);
        await foreach (var group in scan)
        {
            foreach (var file in group.Files)
            {
                expected.Add(file.Path.ToString(), Describe(group.Size, file.Identity.Device, file.Identity.FileId, file.LastWriteTimeUtc.ToString("O", CultureInfo.InvariantCulture), file.LastChangeTimeUtc.ToString("O", CultureInfo.InvariantCulture), file.OtherLinks.Select(l => l.ToString()), group.Files.Select(f => f.Path.ToString())));
            }
        }

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", "json", tree.Root]);
        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        var actual = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var group in json.RootElement.GetProperty("groups").EnumerateArray())
        {
            var files = group.GetProperty("files").EnumerateArray().ToArray();
            foreach (var file in files)
            {
                var links = file.TryGetProperty("links", out var l) ? l.EnumerateArray().Select(e => e.GetString()!) : [];
                actual.Add(file.GetProperty("path").GetString()!, Describe(group.GetProperty("size").GetInt64(), file.GetProperty("device").GetUInt64(), file.GetProperty("inode").GetUInt64(), file.GetProperty("mtime").GetString()!, file.GetProperty("ctime").GetString()!, links, files.Select(f => f.GetProperty("path").GetString()!)));
            }
        }

        Assert.Equal(300, json.RootElement.GetProperty("groups").GetArrayLength());
        Assert.Equal(600, actual.Count);
        Assert.Equal(expected.OrderBy(p => p.Key, StringComparer.Ordinal), actual.OrderBy(p => p.Key, StringComparer.Ordinal));
        Assert.Equal(30, actual.Values.Count(v => v.Contains("/c/link", StringComparison.Ordinal) && v.Contains("links [/", StringComparison.Ordinal)));

        static string Describe(long size, ulong device, ulong inode, string mtime, string ctime, IEnumerable<string> links, IEnumerable<string> group) =>
            $"{size} {device}:{inode} {mtime} {ctime} links [{string.Join(", ", links)}] group [{string.Join(", ", group)}]";
    }

    private static async Task<string[]> FirstFoldersAsync(TempTree tree, params string[] sort)
    {
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", "json", .. sort, tree.Root]);
        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        return json.RootElement.GetProperty("groups").EnumerateArray()
            .Select(g => Path.GetFileName(Path.GetDirectoryName(g.GetProperty("files")[0].GetProperty("path").GetString())!))
            .ToArray();
    }

    /// <summary>Forty groups of various sizes, with names holding a newline and an escape character.</summary>
    private static TempTree ManyGroups()
    {
        var tree = new TempTree();
        for (var i = 0; i < 40; i++)
        {
            var content = TempTree.RandomBytes(100 + (i % 7 * 500), i);
            tree.Write($"data/{i % 5}/x{i}", content);
            tree.Write($"data/{(i + 1) % 5}/y{i}", content);
        }

        tree.Write("data/line\nbreak", "odd names");
        tree.Write("data/esc\u001b[31mred", "odd names");
        return tree;
    }
}
