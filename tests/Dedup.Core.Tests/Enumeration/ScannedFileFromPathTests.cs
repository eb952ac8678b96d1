using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.EnumerationTests;

/// <summary>
/// <see cref="ScannedFile.FromPath"/> gives a custom source what the library's own walk reads (#36): identity, links,
/// size, times to the nanosecond, owner; and <see cref="FileEnumerationContext"/> can be made outside a scan.
/// </summary>
public sealed class ScannedFileFromPathTests
{
    [LinuxFact]
    [SupportedOSPlatform("linux")]
    public async Task FromPath_reads_what_the_walk_reads_of_every_file()
    {
        using var tree = new TempTree();
        tree.Write("a.bin", TempTree.RandomBytes(5_000, 1));
        tree.Write("sub/b.bin", TempTree.RandomBytes(7_000, 2));
        tree.HardLink("a.bin", "sub/a-link.bin");
        var context = new FileEnumerationContext([AbsolutePath.Parse(tree.Root)]);

        var walked = new List<ScannedFile>();
        await foreach (var file in new ParallelFileEnumerator().EnumerateAsync(context))
        {
            walked.Add(file);
        }

        Assert.Equal(3, walked.Count);
        foreach (var file in walked)
        {
            var read = ScannedFile.FromPath(file.Path);
            Assert.Equal(file.Path, read.Path);
            Assert.Equal(file.Stamp, read.Stamp); // identity, size, mtime and ctime to the nanosecond
            Assert.True(read.Stamp.IsComplete);
            Assert.Equal(file.LinkCount, read.LinkCount);
            Assert.Equal(file.LastWriteTimeUtc, read.LastWriteTimeUtc);
            Assert.Equal(file.LastChangeTimeUtc, read.LastChangeTimeUtc);
            Assert.Equal(file.OwnerId, read.OwnerId);
        }

        var linked = ScannedFile.FromPath(AbsolutePath.Parse(tree.PathOf("sub/a-link.bin")));
        Assert.Equal(2, linked.LinkCount);
        Assert.Equal(ScannedFile.FromPath(AbsolutePath.Parse(tree.PathOf("a.bin"))).Identity, linked.Identity);
        var (major, minor, inode, owner) = StatOf(tree.PathOf("a.bin"));
        Assert.Equal(FileIdentity.FromStatx(major, minor, inode), linked.Identity);
        Assert.Equal(owner, linked.OwnerId);
    }

    [LinuxFact]
    public void FromPath_refuses_a_link_a_folder_and_a_missing_file_with_the_usual_exceptions()
    {
        using var tree = new TempTree();
        tree.Write("file.bin", "x");
        tree.Symlink("file.bin", "link.bin");
        Directory.CreateDirectory(tree.PathOf("folder"));

        var link = Assert.Throws<IOException>(() => ScannedFile.FromPath(AbsolutePath.Parse(tree.PathOf("link.bin"))));
        Assert.Equal($"'{tree.PathOf("link.bin")}' is a symbolic link, not a regular file.", link.Message);
        var folder = Assert.Throws<IOException>(() => ScannedFile.FromPath(AbsolutePath.Parse(tree.PathOf("folder"))));
        Assert.Equal($"'{tree.PathOf("folder")}' is a folder, not a regular file.", folder.Message);
        var missing = Assert.Throws<FileNotFoundException>(() => ScannedFile.FromPath(AbsolutePath.Parse(tree.PathOf("gone.bin"))));
        Assert.Equal(tree.PathOf("gone.bin"), missing.FileName);
        Assert.Throws<FileNotFoundException>(() => ScannedFile.FromPath(AbsolutePath.Parse(tree.PathOf("file.bin/below"))));
    }

    [Fact]
    public void A_change_time_given_to_the_constructor_completes_the_stamp()
    {
        var path = AbsolutePath.Parse(OperatingSystem.IsWindows() ? @"C:\x\file.bin" : "/x/file.bin");
        var written = new DateTime(2026, 11, 29, 10, 0, 0, DateTimeKind.Utc).AddTicks(1234567);
        var changed = written.AddTicks(1);

        var bare = new ScannedFile(path, 10, new FileIdentity(1, 2), 1, written);
        var full = new ScannedFile(path, 10, new FileIdentity(1, 2), 1, written) { LastChangeTimeUtc = changed, OwnerId = 1000 };

        Assert.False(bare.Stamp.IsComplete); // a cache cannot trust it
        Assert.Equal(DateTime.MinValue, bare.LastChangeTimeUtc);
        Assert.Equal(ScannedFile.UnknownOwner, bare.OwnerId);
        Assert.True(full.Stamp.IsComplete);
        Assert.Equal(changed, full.LastChangeTimeUtc);
        Assert.Equal((changed.Ticks - DateTime.UnixEpoch.Ticks) * 100, full.Stamp.ChangeTimeNs);
        Assert.Equal(1000u, full.OwnerId);
    }

    [LinuxFact]
    public async Task A_context_made_by_a_test_filters_as_the_scans_and_reports_errors_to_its_callback()
    {
        using var tree = new TempTree();
        tree.Write("keep/a.txt", "aaaa");
        tree.Write("keep/big.txt", new string('b', 100));
        tree.Write("keep/a.log", "cccc");
        tree.Write("skip/a.txt", "dddd");
        tree.Write(".hidden/a.txt", "eeee");
        var errors = new List<ScanError>();
        var context = new FileEnumerationContext([AbsolutePath.Parse(tree.Root), AbsolutePath.Parse(tree.Root)], new SyncProgress(errors.Add))
        {
            Include = ["*.txt"],
            Exclude = ["skip"],
            IncludeHidden = false,
            MaxSize = 10,
        };

        var names = new List<string>();
        await foreach (var file in new ParallelFileEnumerator().EnumerateAsync(context))
        {
            names.Add(Path.GetRelativePath(tree.Root, file.Path.ToString()));
        }

        Assert.Single(context.Roots); // duplicates dropped
        Assert.Equal(["*.txt"], context.Include);
        Assert.Equal(["skip"], context.Exclude);
        Assert.Equal([Path.Combine("keep", "a.txt")], names);
        context.ReportError("/x", ScanErrorKind.IOError, "why");
        Assert.Equal(new ScanError("/x", ScanErrorKind.IOError, "why"), Assert.Single(errors));
    }

    [Fact]
    public void A_context_made_by_a_test_lets_every_file_through_until_told_otherwise()
    {
        var context = new FileEnumerationContext([]);

        Assert.True(context.IncludeHidden);
        Assert.False(context.FollowSymbolicLinks);
        Assert.False(context.StayOnOneFileSystem);
        Assert.True(context.IsSizeIncluded(0));
        Assert.True(context.IsSizeIncluded(long.MaxValue));
        Assert.True(context.IsFileIncluded("any/name.bin"));
        Assert.False(context.IsDirectoryExcluded("any"));
        Assert.Equal(Environment.ProcessorCount, context.MaxDegreeOfParallelism);
        context.ReportError("/x", ScanErrorKind.IOError, "nobody listens"); // no callback: nothing to throw
    }

    /// <summary>GNU stat's device major and minor, inode and owner: what the kernel says, read by another program.</summary>
    private static (uint Major, uint Minor, ulong Inode, uint Owner) StatOf(string path)
    {
        var fields = ProcessRunner.RunChecked("stat", "-c", "%Hd %Ld %i %u", path).Split(' ', StringSplitOptions.TrimEntries);
        var invariant = System.Globalization.CultureInfo.InvariantCulture;
        return (uint.Parse(fields[0], invariant), uint.Parse(fields[1], invariant), ulong.Parse(fields[2], invariant), uint.Parse(fields[3], invariant));
    }

    /// <summary>Calls back at once on the reporting thread (<see cref="Progress{T}"/> posts to the thread pool).</summary>
    private sealed class SyncProgress(Action<ScanError> report) : IProgress<ScanError>
    {
        public void Report(ScanError value) => report(value);
    }
}
