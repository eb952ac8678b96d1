using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Files are opened relative to cached folder descriptors on Linux; the scan must find the same groups and
/// close every descriptor it opened, whether enumerated to the end or abandoned after the first group.
/// </summary>
public sealed class FolderHandleTests
{
    [LinuxFact]
    public async Task Folder_descriptors_are_closed_when_the_scan_ends()
    {
        using var tree = BuildTree();
        var (groups, _) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Equal(40, groups.Count);
        Assert.All(groups, g => Assert.Equal(3, g.Files.Count));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task Folder_descriptors_are_closed_when_the_caller_stops_early()
    {
        using var tree = BuildTree();
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        var received = false;
        await foreach (var group in scan)
        {
            received = true;
            Assert.Equal(3, group.Files.Count);
            break;
        }

        Assert.True(received, "the scan yielded no group, so the caller never stopped early");
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void The_cache_keeps_one_descriptor_per_folder_up_to_its_capacity_and_none_after_it_is_disposed()
    {
        using var tree = new TempTree();
        var capacity = Dedup.Core.Scanning.FolderHandles.Capacity;
        Assert.InRange(capacity, 1, 4096);
        var folders = Enumerable.Range(0, capacity + 20).Select(i => AbsolutePath.Parse(Directory.CreateDirectory(tree.PathOf($"d{i}")).FullName)).ToArray();
        var handles = new Dedup.Core.Scanning.FolderHandles();

        Assert.Equal(-1, handles.Get(null));
        var first = folders.Take(capacity).Select(handles.Get).ToArray();
        Assert.All(first, fd => Assert.True(fd > 2, $"descriptor {fd}"));
        Assert.Equal(capacity, first.Distinct().Count());
        Assert.Equal(first, folders.Take(capacity).Select(handles.Get)); // cached: the same descriptor again
        Assert.All(folders.Skip(capacity), folder => Assert.Equal(-1, handles.Get(folder))); // full: by full path
        Assert.Equal(capacity, OpenDescriptors.Under(tree.Root, includeRoot: false).Count);

        handles.Dispose();
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));

        // A cache with room left opens nothing once the scan is torn down.
        var other = new Dedup.Core.Scanning.FolderHandles();
        Assert.True(other.Get(folders[0]) > 2);
        other.Dispose();
        Assert.Equal(-1, other.Get(folders[1]));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public async Task More_folders_than_the_descriptor_cache_holds_are_opened_by_full_path()
    {
        // 4,200 folders (the cache keeps 4,096): files in the rest are opened by full path, same results.
        using var tree = new TempTree();
        const int Folders = 4200;
        for (var i = 0; i < Folders; i++)
        {
            // Folders i and i + Folders/2 hold files of one size and the same bytes (probed, then compared).
            var content = new byte[9000 + (i % (Folders / 2))];
            content[0] = (byte)(i % (Folders / 2));
            content[^1] = (byte)(i % (Folders / 2) % 251);
            tree.Write($"f{i}/x.bin", content);
        }

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Equal(Folders / 2, groups.Count);
        Assert.All(groups, g => Assert.Equal(2, g.Files.Count));
        Assert.Empty(summary.Errors);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact(Tool = "prlimit")]
    public async Task A_low_open_file_limit_is_respected_by_the_descriptor_cache()
    {
        // 600 folders, each with a duplicate pair, scanned by the CLI under a limit of 256 open files: the cache must
        // leave room for the scan's own opens and the runtime's (a fixed 4,096 exhausted them: EMFILE, crash).
        using var tree = new TempTree();
        for (var i = 0; i < 600; i++)
        {
            var content = TempTree.RandomBytes(10_000 + i, 2000 + i);
            tree.Write($"d{i}/a.bin", content);
            tree.Write($"d{i}/b.bin", content);
        }

        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
        var cli = Path.Combine(AppContext.BaseDirectory, "dedup.dll");
        var (exitCode, stdout, stderr) = await ProcessRunner.RunAsync(
            "prlimit", ["--nofile=256:256", dotnet, cli, "find", tree.Root, "--format", "json"]);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {stderr}");
        using var json = System.Text.Json.JsonDocument.Parse(stdout);
        Assert.Equal(600, json.RootElement.GetProperty("groups").GetArrayLength());
        Assert.Equal(0, json.RootElement.GetProperty("summary").GetProperty("errors").GetArrayLength());
    }

    private static TempTree BuildTree()
    {
        // 40 contents, each in three different folders, large enough to be probed and compared (not read whole).
        var tree = new TempTree();
        for (var i = 0; i < 40; i++)
        {
            var content = TempTree.RandomBytes(20_000 + i, 900 + i);
            for (var copy = 0; copy < 3; copy++)
            {
                tree.Write($"d{(i + copy) % 25}/sub{copy}/f{i}.bin", content);
            }
        }

        return tree;
    }
}
