using System.Runtime.CompilerServices;
using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Files that change while a scan runs: deleted, truncated, grown, rewritten or replaced after being
/// listed, or while being compared. They must be left out and reported, never grouped or crash the scan.
/// </summary>
public sealed class ChangingFilesTests
{
    [RequiresToolFact("mkfifo")]
    public async Task Files_changed_between_listing_and_reading_are_left_out_and_reported()
    {
        using var tree = new TempTree();
        var expectedGroups = new List<string[]>();
        var expectedErrors = new List<string>();
        var mutations = new List<Action>();

        // 100 B files are settled by the whole-file read, 20 kB files by the strategy: both paths open files.
        foreach (var size in new[] { 100, 20_000 })
        {
            var content = TempTree.RandomBytes(size, size);
            string Write(string name) => tree.Write($"s{size}/{name}", content);
            expectedGroups.Add([Write("keep1"), Write("keep2")]);
            var deleted = Write("deleted");
            var truncated = Write("truncated");
            var grown = Write("grown");
            var fifo = Write("fifo");
            var rewritten = Write("rewritten");
            var replaced = Write("replaced");
            expectedErrors.AddRange(
            [
                $"{deleted}: {ScanErrorKind.NotFound}", $"{truncated}: {ScanErrorKind.Changed}", $"{grown}: {ScanErrorKind.Changed}",
                $"{fifo}: {ScanErrorKind.Changed}", $"{rewritten}: {ScanErrorKind.Changed}", $"{replaced}: {ScanErrorKind.Changed}",
            ]);
            mutations.Add(() =>
            {
                File.Delete(deleted);
                using (var stream = new FileStream(truncated, FileMode.Open))
                {
                    stream.SetLength(size / 2);
                }

                File.AppendAllBytes(grown, [1, 2, 3]);
                File.Delete(fifo);
                TempTree.Run("mkfifo", fifo);

                // Same size, different bytes and a newer time, as an editor saving the file would leave it.
                var edited = (byte[])content.Clone();
                edited[size / 2] ^= 1;
                File.WriteAllBytes(rewritten, edited);
                File.SetLastWriteTimeUtc(rewritten, DateTime.UtcNow.AddMinutes(5));

                // Same bytes, same size, but another inode (saved through a temporary file and renamed).
                File.WriteAllBytes(replaced + ".tmp", content);
                File.Move(replaced + ".tmp", replaced, overwrite: true);
            });
        }

        var enumerator = new MutatingEnumerator(() => mutations.ForEach(m => m()));
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).UseFileEnumerator(enumerator), cts.Token);

        Assert.False(cts.IsCancellationRequested);
        Assert.True(enumerator.Mutated);
        Assert.Equal(Expect.Groups([.. expectedGroups]), Scan.Canonical(groups));
        Assert.Equal(expectedErrors.Order(StringComparer.Ordinal), summary.Errors.Select(e => $"{e.Path}: {e.Kind}").Order(StringComparer.Ordinal));
        Assert.Equal(16, summary.FilesScanned);
    }

    [LinuxFact]
    public async Task A_file_truncated_while_being_compared_is_left_out()
    {
        var (groups, summary, keep, victim) = await CompareWhileChangingAsync(path =>
        {
            using var stream = new FileStream(path, FileMode.Open);
            stream.SetLength(stream.Length / 2);
        });

        Assert.Equal(Expect.Groups(keep), Scan.Canonical(groups));
        var error = Assert.Single(summary.Errors);
        Assert.Equal((victim, ScanErrorKind.Changed), (error.Path, error.Kind));
    }

    [LinuxFact]
    public async Task A_file_that_grows_while_being_compared_is_left_out()
    {
        var (groups, summary, keep, victim) = await CompareWhileChangingAsync(path => File.AppendAllBytes(path, [42]));

        Assert.Equal(Expect.Groups(keep), Scan.Canonical(groups));
        var error = Assert.Single(summary.Errors);
        Assert.Equal((victim, ScanErrorKind.Changed), (error.Path, error.Kind));
    }

    [LinuxFact]
    public async Task A_file_rewritten_with_the_same_bytes_while_being_compared_is_left_out()
    {
        // Content equal in the end, but the file changed under the reader: the final check must catch it.
        var (groups, summary, keep, victim) = await CompareWhileChangingAsync(path =>
        {
            File.WriteAllBytes(path, File.ReadAllBytes(path));
            File.SetLastWriteTimeUtc(path, DateTime.UtcNow.AddMinutes(5));
        });

        Assert.Equal(Expect.Groups(keep), Scan.Canonical(groups));
        var error = Assert.Single(summary.Errors);
        Assert.Equal((victim, ScanErrorKind.Changed), (error.Path, error.Kind));
    }

    /// <summary>Three identical 1 MiB files; one is changed right after the strategy's first read of it.</summary>
    private static async Task<(List<DuplicateGroup> Groups, ScanSummary Summary, string[] Keep, string Victim)> CompareWhileChangingAsync(Action<string> change)
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(1024 * 1024, 9);
        var keep = new[] { tree.Write("keep1", content), tree.Write("keep2", content) };
        var victim = tree.Write("victim", content);
        var strategy = new ChangingStrategy(victim, change);

        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).UseComparer(strategy), cts.Token);

        Assert.True(strategy.Changed, "The strategy never read the victim, so nothing was tested.");
        return (groups, summary, keep, victim);
    }

    /// <summary>The real default enumerator, with a hook that runs once every file has been listed.</summary>
    private sealed class MutatingEnumerator(Action afterListing) : IFileEnumerator
    {
        private readonly ParallelFileEnumerator _inner = new();

        public bool Mutated { get; private set; }

        public async IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, [EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            await foreach (var file in _inner.EnumerateAsync(context, cancellationToken))
            {
                yield return file;
            }

            afterListing();
            Mutated = true;
        }
    }

    /// <summary>The real Hybrid strategy, reading through a set that changes one file after its first read.</summary>
    private sealed class ChangingStrategy(string victim, Action<string> change) : IComparerStrategy
    {
        public bool Changed { get; private set; }

        public string Name => "changing";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default) =>
            ComparerStrategies.Hybrid.Partition(new HookedSet(set, this), cancellationToken);

        private void AfterRead(string path)
        {
            if (!Changed && path == victim)
            {
                Changed = true;
                change(path);
            }
        }

        private sealed class HookedSet(ComparisonSet inner, ChangingStrategy owner)
            : ComparisonSet(inner.HashAlgorithm, inner.TrustHashes, inner.ChunkSize, inner.Buffers)
        {
            public override int Count => inner.Count;

            public override long Length => inner.Length;

            public override bool TryRead(int index, long offset, Span<byte> destination)
            {
                var ok = inner.TryRead(index, offset, destination);
                owner.AfterRead(((Core.Scanning.FileComparisonSet)inner)[index].Primary.Path.ToString());
                return ok;
            }

            public override void Release(int index) => inner.Release(index);

            public override void AddGroup(ReadOnlySpan<int> indices, bool verifiedByBytes) => inner.AddGroup(indices, verifiedByBytes);
        }
    }
}
