using System.Net.Sockets;
using System.Runtime.Versioning;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>Special files, symbolic links and loops: the scan must finish, never open what is not a regular file, and report problems.</summary>
public sealed class BadInputTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(30);

    [RequiresToolFact("mkfifo")]
    public async Task A_fifo_in_the_tree_is_skipped_and_the_scan_finishes()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(5000, 1);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("sub/b.bin", content);
        TempTree.Run("mkfifo", tree.PathOf("pipe"));
        TempTree.Run("mkfifo", tree.PathOf("sub/pipe.bin"));

        using var cts = new CancellationTokenSource(Limit);
        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).IncludeEmptyFiles(), cts.Token);

        Assert.False(cts.IsCancellationRequested);
        Assert.Equal(Expect.Groups([a, b]), Scan.Canonical(groups));
        Assert.Equal(2, summary.FilesScanned);
        Assert.Empty(summary.Errors);
    }

    [RequiresToolFact("mkfifo")]
    public async Task Sockets_devices_and_fifos_behind_followed_links_are_never_read()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(5000, 2);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        TempTree.Run("mkfifo", tree.PathOf("pipe"));
        tree.Symlink(tree.PathOf("pipe"), "to-pipe");
        tree.Symlink("/dev/zero", "zero");
        tree.Symlink("/dev/urandom", "urandom");
        tree.Symlink("/dev/null", "null");
        using var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        socket.Bind(new UnixDomainSocketEndPoint(tree.PathOf("socket")));
        tree.Symlink(tree.PathOf("socket"), "to-socket");

        // Reading /dev/zero or /dev/urandom would never end; opening the FIFO would block.
        using var cts = new CancellationTokenSource(Limit);
        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).FollowSymbolicLinks().IncludeEmptyFiles(), cts.Token);

        Assert.False(cts.IsCancellationRequested);
        Assert.Equal(Expect.Groups([a, b]), Scan.Canonical(groups));
        Assert.Equal(2, summary.FilesScanned);
        Assert.Empty(summary.Errors);
    }

    [LinuxFact]
    public async Task Symbolic_links_are_skipped_by_default()
    {
        using var tree = new TempTree();
        using var outside = new TempTree();
        var content = TempTree.RandomBytes(3000, 3);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        outside.Write("dir/c.bin", content);
        tree.Symlink(a, "alias.bin");
        tree.Symlink(outside.PathOf("dir/c.bin"), "to-outside.bin");
        tree.Symlink(outside.PathOf("dir"), "to-dir");

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Equal(Expect.Groups([a, b]), Expect.WithLinks(groups));
        Assert.Equal(2, summary.FilesScanned);
    }

    [LinuxFact]
    public async Task Followed_links_lead_to_files_and_folders()
    {
        using var tree = new TempTree();
        using var outside = new TempTree();
        var content = TempTree.RandomBytes(3000, 4);
        var a = tree.Write("a.bin", content);
        outside.Write("dir/c.bin", content);
        outside.Write("d.bin", content);
        var alias = tree.Symlink("a.bin", "alias.bin");
        var fileLink = tree.Symlink(outside.PathOf("d.bin"), "to-d.bin");
        tree.Symlink(outside.PathOf("dir"), "to-dir");

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).FollowSymbolicLinks());

        // The link to a.bin names the same inode: one file with two names, not two duplicates.
        var viaDir = tree.PathOf("to-dir/c.bin");
        Assert.Equal([$"{a} [{alias}] | {fileLink} | {viaDir}"], Expect.WithLinks(groups));
        var throughLink = groups.Single().Files.Single(f => f.Path.ToString() == viaDir).Path;
        var point = Assert.IsType<AbsolutePathSymlinkPoint>(throughLink.Parent);
        Assert.Equal(outside.PathOf("dir"), point.Target);
        Assert.Equal(4, summary.FilesScanned);
        Assert.Empty(summary.Errors);
    }

    [LinuxFact]
    public async Task A_link_loop_is_detected_and_no_file_is_listed_twice()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(3000, 5);
        var files = new[] { tree.Write("x.bin", content), tree.Write("d/y.bin", content), tree.Write("d/e/z.bin", content) };
        tree.Symlink("..", "d/loop");
        tree.Symlink(".", "d/e/self");
        tree.Symlink("../../d", "d/e/back");
        tree.Symlink("spin", "spin");

        using var cts = new CancellationTokenSource(Limit);
        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).FollowSymbolicLinks(), cts.Token);

        Assert.False(cts.IsCancellationRequested);
        Assert.Equal(Expect.Groups(files), Expect.WithLinks(groups));
        Assert.Equal(3, summary.FilesScanned);
        Assert.Contains(summary.Errors, e => e.Kind == ScanErrorKind.SymbolicLinkLoop && e.Path == tree.PathOf("d/loop"));
        Assert.Contains(summary.Errors, e => e.Kind == ScanErrorKind.SymbolicLinkLoop && e.Path == tree.PathOf("d/e/self"));
        Assert.Contains(summary.Errors, e => e.Kind == ScanErrorKind.SymbolicLinkLoop && e.Path == tree.PathOf("d/e/back"));
        Assert.Contains(summary.Errors, e => e.Kind == ScanErrorKind.SymbolicLinkLoop && e.Path == tree.PathOf("spin"));
    }

    [LinuxFact]
    public async Task Folders_linked_to_each_other_are_each_listed_once()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(3000, 6);
        tree.Write("a/one.bin", content);
        tree.Write("b/two.bin", content);
        tree.Symlink("../b", "a/to-b");
        tree.Symlink("../a", "b/to-a");

        using var cts = new CancellationTokenSource(Limit);
        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).FollowSymbolicLinks(), cts.Token);

        // Which path reaches each folder first may vary; each file must still appear exactly once.
        var group = Assert.Single(groups);
        Assert.Equal(2, group.Files.Count);
        Assert.Equal(2, group.Files.Select(f => f.Identity).Distinct().Count());
        Assert.All(group.Files, f => Assert.Empty(f.OtherLinks));
        Assert.Equal(2, summary.FilesScanned);
    }

    [LinuxFact(Tool = "sh")]
    public async Task A_name_that_is_not_utf8_is_scanned_like_any_other()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(1000, 7);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        const string BadName = "\"$1\"/\"$(printf 'bad\\377name')\"";
        TempTree.Run("sh", "-c", "printf 'data' > " + BadName, "sh", tree.Root);
        try
        {
            var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

            Assert.Equal(Expect.Groups([a, b]), Scan.Canonical(groups));
            Assert.Empty(summary.Errors);
            Assert.Equal(3, summary.FilesScanned);
        }
        finally
        {
            // .NET cannot name this file to delete it, so TempTree's Dispose would leave the folder behind.
            TempTree.Run("sh", "-c", "rm -- " + BadName, "sh", tree.Root);
        }
    }

    [LinuxFact(RequiresRoot = true, Tool = "setpriv")]
    [SupportedOSPlatform("linux")]
    public async Task An_unreadable_file_is_reported_by_the_cli_and_the_other_duplicates_grouped()
    {
        // Root reads chmod-000 files, so the CLI runs as user nobody to meet a real EACCES.
        using var tree = new TempTree();
        using var cli = new CliAsNobody();
        var content = TempTree.RandomBytes(20_000, 8);
        var a = tree.Write("data/a.bin", content);
        var b = tree.Write("data/sub/b.bin", content);
        var locked = tree.Write("data/locked.bin", content);
        File.SetUnixFileMode(locked, UnixFileMode.None);
        CliAsNobody.MakeTraversable(tree.PathOf("data"));
        var (exitCode, stdout, stderr) = await cli.RunAsync(["find", tree.PathOf("data"), "--format", "json"]);

        Assert.True(exitCode == 1, $"exit code {exitCode}; stderr: {stderr}");
        using var json = System.Text.Json.JsonDocument.Parse(stdout);
        var error = Assert.Single(json.RootElement.GetProperty("summary").GetProperty("errors").EnumerateArray());
        Assert.Equal(locked, error.GetProperty("path").GetString());
        Assert.Equal("Permission denied", error.GetProperty("message").GetString());
        Assert.Equal(nameof(ScanErrorKind.AccessDenied), error.GetProperty("kind").GetString());
        var group = Assert.Single(json.RootElement.GetProperty("groups").EnumerateArray());
        Assert.Equal([a, b], group.GetProperty("files").EnumerateArray().Select(f => f.GetProperty("path").GetString()!).Order(StringComparer.Ordinal));
    }
}
