// Users plug their own IFileEnumerator, IComparerStrategy and IDriveTopology into DuplicateFinderBuilder, from an assembly
// that sees only the public API (this project has no InternalsVisibleTo), and get correct groups on real files.
// Linker, the fourth abstraction, is in LinkerPluginTests.cs.
using System.Security.Cryptography;
using BackupTool;
using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Dedup.Core.Pooling;
using Dedup.Core.Topology;

namespace Dedup.Core.ExternalTests;

// One collection with LinkerPluginTests: both redirect Console.Out to run the sample.
[Collection("ConsoleOut")]
public sealed class PluggableAbstractionsTests
{
    private const string NotFileSystemIdentity = "does not match the file system's";

    [LinuxFact]
    public async Task Backup_sample_enumerator_finds_the_groups_of_its_manifest()
    {
        using var tree = new TempFolder();
        var big = TempFolder.RandomBytes(100_000, 1);
        tree.Write("home/a.bin", big);
        tree.Write("home/copy of a.bin", big);
        tree.HardLink("home/a.bin", "home/a-link.bin");
        tree.Write("etc/x.conf", "same text");
        tree.Write("var/x.conf", "same text");
        tree.Write("var/unique.bin", TempFolder.RandomBytes(100_000, 2));
        tree.Write("var/gone.bin", big);
        var manifest = Tools.WriteManifest(tree.Root);
        File.Delete(Path.Combine(tree.Root, "var/gone.bin")); // listed in the manifest, gone from the snapshot

        var (groups, summary) = await Scans.RunAsync(new DuplicateFinderBuilder()
            .AddRoot(tree.Root)
            .UseFileEnumerator(new ManifestEnumerator(tree.Root, manifest))
            .Build());

        Assert.Equal(["etc/x.conf | var/x.conf", "home/a-link.bin | home/a.bin | home/copy of a.bin"], Scans.Canonical(groups, tree.Root));
        var big2 = Assert.Single(groups, g => g.Size == big.Length);
        Assert.Equal(2, big2.Files.Count); // the hard link is folded into its file, not a third copy
        var error = Assert.Single(summary.Errors);
        Assert.Equal(Path.Combine(tree.Root, "var/gone.bin"), error.Path);
        Assert.Equal(Reporting.ScanErrorKind.NotFound, error.Kind);
    }

    [LinuxFact]
    public void Backup_sample_program_prints_the_groups()
    {
        using var tree = new TempFolder();
        tree.Write("a.txt", "twice");
        tree.Write("b.txt", "twice");
        tree.Write("c.txt", "once!");
        var manifest = Tools.WriteManifest(tree.Root);
        var output = new StringWriter();
        var previous = Console.Out;
        int exitCode;
        Console.SetOut(output);
        try
        {
            // The compiler's entry point for a top-level async Main: it runs the program to the end.
            var entry = typeof(ManifestEnumerator).Assembly.EntryPoint!;
            exitCode = (int)entry.Invoke(null, [new[] { tree.Root, manifest }])!;
        }
        finally
        {
            Console.SetOut(previous);
        }

        Assert.Equal(0, exitCode);
        Assert.Equal(
            $"5 bytes, 2 copies:\n  {Path.Combine(tree.Root, "a.txt")}\n  {Path.Combine(tree.Root, "b.txt")}\n1 groups, 5 bytes in duplicate copies.\n",
            output.ToString().ReplaceLineEndings("\n"));
    }

    [LinuxFact(NeedsDistinctStatDevice = true)]
    public async Task Enumerator_filling_Device_with_raw_st_dev_gets_a_clear_error_and_FromUnixStat_gets_the_groups()
    {
        using var tree = new TempFolder(Tools.FolderWithDistinctStatDevice());
        for (var i = 0; i < 5; i++)
        {
            var content = TempFolder.RandomBytes(20_000 + i, i);
            tree.Write($"a/{i}.bin", content);
            tree.Write($"b/{i}.bin", content);
        }

        var manifest = Tools.WriteManifest(tree.Root);

        var raw = await Scans.RunAsync(new DuplicateFinderBuilder().AddRoot(tree.Root)
            .UseFileEnumerator(ListEnumerator.FromManifest(tree.Root, manifest, (stDev, inode, _) => new FileIdentity(stDev, inode))).Build());

        Assert.Empty(raw.Groups);
        Assert.Equal(10, raw.Summary.Errors.Select(e => e.Path).Distinct().Count());
        Assert.All(raw.Summary.Errors, e =>
        {
            Assert.Contains(NotFileSystemIdentity, e.Message, StringComparison.Ordinal);
            Assert.Contains("is stat's st_dev", e.Message, StringComparison.Ordinal);
            Assert.Contains("FileIdentity.FromUnixStat(st_dev, st_ino)", e.Message, StringComparison.Ordinal);
        });

        var converted = await Scans.RunAsync(new DuplicateFinderBuilder().AddRoot(tree.Root)
            .UseFileEnumerator(ListEnumerator.FromManifest(tree.Root, manifest, (stDev, inode, _) => FileIdentity.FromUnixStat(stDev, inode))).Build());

        Assert.Empty(converted.Summary.Errors);
        Assert.Equal(Enumerable.Range(0, 5).Select(i => $"a/{i}.bin | b/{i}.bin"), Scans.Canonical(converted.Groups, tree.Root));
    }

    [LinuxFact]
    public async Task Enumerator_with_counter_identities_gets_a_clear_error_not_silence()
    {
        using var tree = new TempFolder();
        const int Pairs = 12;
        for (var i = 0; i < Pairs; i++)
        {
            var content = TempFolder.RandomBytes(3_000 + i, i);
            tree.Write($"a/{i}.bin", content);
            tree.Write($"b/{i}.bin", content);
        }

        var manifest = Tools.WriteManifest(tree.Root);

        // As a portable enumerator does where the platform gives no inode: one device, a counter per file.
        var (groups, summary) = await Scans.RunAsync(new DuplicateFinderBuilder().AddRoot(tree.Root)
            .UseFileEnumerator(ListEnumerator.FromManifest(tree.Root, manifest, (_, _, line) => new FileIdentity(1, (ulong)line))).Build());

        Assert.Empty(groups);
        Assert.Equal(2 * Pairs, summary.Errors.Select(e => e.Path).Distinct().Count());
        Assert.All(summary.Errors, e => Assert.Contains("FileIdentity", e.Message, StringComparison.Ordinal));

        // Opens are parallel, so which files come first varies; from the eighth mismatch on the verdict is certain.
        var definite = summary.Errors.Count(e => e.Message.Contains(NotFileSystemIdentity, StringComparison.Ordinal)
            && e.Message.Contains("none of the first", StringComparison.Ordinal));
        Assert.True(definite >= (2 * Pairs) - 7, $"{definite} of {summary.Errors.Count} errors name the enumerator's identities: {string.Join('\n', summary.Errors)}");
    }

    [Fact]
    public async Task Own_comparer_strategy_gives_the_groups()
    {
        using var tree = new TempFolder();

        // Same size, first and last 4 KiB equal: the probes cannot tell them apart, so the strategy must.
        var a = TempFolder.RandomBytes(100_000, 7);
        var b = (byte[])a.Clone();
        b[50_000] ^= 1;
        var c = (byte[])a.Clone();
        c[60_000] ^= 1;
        tree.Write("a1.bin", a);
        tree.Write("a2.bin", a);
        tree.Write("b1.bin", b);
        tree.Write("b2.bin", b);
        tree.Write("c.bin", c);
        var strategy = new Sha256ThenBytesStrategy();

        var (groups, summary) = await Scans.RunAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).UseComparer(strategy).Build());

        Assert.Empty(summary.Errors);
        Assert.Equal(["a1.bin | a2.bin", "b1.bin | b2.bin"], Scans.Canonical(groups, tree.Root));
        Assert.All(groups, g => Assert.True(g.VerifiedByBytes));
        Assert.Equal(1, strategy.Calls);
        Assert.Equal(5, strategy.FilesSeen);
    }

    [Fact]
    public void Own_comparer_strategy_can_be_tested_on_an_own_comparison_set()
    {
        var a = TempFolder.RandomBytes(10_000, 3);
        var b = (byte[])a.Clone();
        b[^1] ^= 1;
        var set = new ArraySet([a, b, (byte[])a.Clone()]);

        new Sha256ThenBytesStrategy().Partition(set);

        var group = Assert.Single(set.Groups);
        Assert.Equal([0, 2], group);
    }

    [Fact]
    public async Task Own_drive_topology_is_asked_for_the_files_devices()
    {
        using var tree = new TempFolder();
        var content = TempFolder.RandomBytes(70_000, 5);
        var one = tree.Write("one.bin", content);
        tree.Write("two.bin", content);
        var topology = new RecordingTopology();

        var (groups, summary) = await Scans.RunAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).UseDriveTopology(topology).Build());

        Assert.Empty(summary.Errors);
        Assert.Equal(["one.bin | two.bin"], Scans.Canonical(groups, tree.Root));
        var device = Assert.Single(groups).Files[0].Identity.Device;
        Assert.Contains(device, topology.Asked);
        if (OperatingSystem.IsLinux())
        {
            var stat = Tools.Stat(one);
            Assert.Equal(FileIdentity.FromUnixStat(stat.StDev, stat.Inode).Device, device);
        }
    }

    /// <summary>Whole-file SHA-256 per file, then byte confirmation of each hash group through the public <see cref="ComparisonSet"/> API.</summary>
    private sealed class Sha256ThenBytesStrategy : IComparerStrategy
    {
        private int _calls;
        private int _filesSeen;

        public string Name => "sha256-then-bytes";

        public int Calls => _calls;

        public int FilesSeen => _filesSeen;

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _calls);
            Interlocked.Add(ref _filesSeen, set.Count);
            var first = set.Buffers.Rent(set.ChunkSize);
            var second = set.Buffers.Rent(set.ChunkSize);
            try
            {
                var byHash = new Dictionary<string, List<int>>();
                for (var i = 0; i < set.Count; i++)
                {
                    using var sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
                    if (ForEachChunk(set, i, first, sha.AppendData, cancellationToken))
                    {
                        var key = Convert.ToHexString(sha.GetHashAndReset());
                        (byHash.TryGetValue(key, out var list) ? list : byHash[key] = []).Add(i);
                    }

                    set.Release(i);
                }

                foreach (var candidates in byHash.Values)
                {
                    ConfirmByBytes(set, candidates, first, second, cancellationToken);
                }
            }
            finally
            {
                set.Buffers.Return(first);
                set.Buffers.Return(second);
            }
        }

        private static bool ForEachChunk(ComparisonSet set, int index, byte[] buffer, Action<byte[], int, int> chunk, CancellationToken cancellationToken)
        {
            for (long offset = 0; offset < set.Length; offset += set.ChunkSize)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var count = (int)Math.Min(set.ChunkSize, set.Length - offset);
                if (!set.TryRead(index, offset, buffer.AsSpan(0, count)))
                {
                    return false;
                }

                chunk(buffer, 0, count);
            }

            return true;
        }

        /// <summary>Splits files of equal hash into classes of equal bytes, each compared with its class's first file.</summary>
        private static void ConfirmByBytes(ComparisonSet set, List<int> candidates, byte[] first, byte[] second, CancellationToken cancellationToken)
        {
            while (candidates.Count >= 2)
            {
                var representative = candidates[0];
                List<int> same = [representative], rest = [];
                foreach (var other in candidates.Skip(1))
                {
                    (SameBytes(set, representative, other, first, second, cancellationToken) ? same : rest).Add(other);
                }

                if (same.Count >= 2)
                {
                    set.AddGroup(same.ToArray(), verifiedByBytes: true);
                }

                candidates = rest;
            }
        }

        private static bool SameBytes(ComparisonSet set, int a, int b, byte[] first, byte[] second, CancellationToken cancellationToken)
        {
            for (long offset = 0; offset < set.Length; offset += set.ChunkSize)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var count = (int)Math.Min(set.ChunkSize, set.Length - offset);
                if (!set.TryRead(a, offset, first.AsSpan(0, count)) || !set.TryRead(b, offset, second.AsSpan(0, count))
                    || !first.AsSpan(0, count).SequenceEqual(second.AsSpan(0, count)))
                {
                    return false;
                }
            }

            return true;
        }
    }

    /// <summary>A user's own <see cref="ComparisonSet"/> over byte arrays, to test a strategy without files.</summary>
    private sealed class ArraySet(byte[][] files) : ComparisonSet(DuplicateHashAlgorithm.Sha256, trustHashes: false, chunkSize: 4096, BufferPool.Shared)
    {
        public List<int[]> Groups { get; } = [];

        public override int Count => files.Length;

        public override long Length => files[0].Length;

        public override bool TryRead(int index, long offset, Span<byte> destination)
        {
            files[index].AsSpan((int)offset, destination.Length).CopyTo(destination);
            return true;
        }

        public override void Release(int index)
        {
        }

        public override void AddGroup(ReadOnlySpan<int> indices, bool verifiedByBytes) => Groups.Add(indices.ToArray());
    }

    /// <summary>Says every device is a hard disk (one reader at a time) and records which devices the scan asked about.</summary>
    private sealed class RecordingTopology : IDriveTopology
    {
        private readonly System.Collections.Concurrent.ConcurrentDictionary<ulong, byte> _asked = new();

        public ICollection<ulong> Asked => _asked.Keys;

        public StorageDevice GetDevice(ulong deviceId)
        {
            _asked.TryAdd(deviceId, 0);
            return new StorageDevice(deviceId, $"test disk {deviceId}", DriveKind.Hdd);
        }
    }
}
