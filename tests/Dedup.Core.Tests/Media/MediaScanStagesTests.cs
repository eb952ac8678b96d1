using System.Runtime.Versioning;
using Dedup.Core.Comparison;
using Dedup.Core.Media;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Media.Fixtures;

namespace Dedup.Core.Tests.Media;

/// <summary>
/// Media mode's stages (whole-file classes, locating each class once, payload comparison of classes) end to end:
/// hard links, empty files, hash trust, cancellation, and files that vanish, change or cannot be read between
/// the stages. Stage hooks run inside a comparer strategy: whole-file sets hold nodes without payload ranges,
/// payload sets nodes with them.
/// </summary>
public sealed class MediaScanStagesTests
{
    /// <summary>Image bytes per PNG: payloads above 8 KiB are compared by the strategy, not settled by the probe.</summary>
    private const int LargeData = 20_000;

    [Fact]
    public async Task Classes_with_equal_payload_lengths_split_by_content_and_every_file_is_reported_once_per_match()
    {
        // Five payloads of one length (so one payload set); d and e differ only in a middle byte, so their
        // probes agree and the strategy must tell them apart. Tags of equal length put different images in
        // one whole-file set as well.
        using var tree = new TempTree();
        var data = Enumerable.Range(1, 4).Select(seed => ByteWriter.Random(LargeData, seed)).ToList();
        var nearMiss = (byte[])data[3].Clone();
        nearMiss[LargeData / 2] ^= 0x55;
        data.Add(nearMiss);
        string Put(string name, int payload, int tag) => tree.Write(name, PngWithData(data[payload], tag));

        var t0 = new[] { Put("a/t0-1.png", 0, 0), Put("a/t0-2.png", 0, 0) };
        var t120 = new[] { Put("a/t120-1.png", 0, 120), Put("a/t120-2.png", 0, 120), Put("a/t120-3.png", 0, 120) };
        var merged1 = new[] { t0[0], Put("a/t50.png", 0, 50), t120[0] }; // one copy of each class
        var merged2 = new[] { Put("b/t0.png", 1, 0), Put("b/t50.png", 1, 50) };
        var copies = new[] { Put("c/t0-1.png", 2, 0), Put("c/t0-2.png", 2, 0) };
        var lone = Put("d/t50.png", 3, 50);
        var merged3 = new[] { Put("e/t120.png", 4, 120), Put("e/t0.png", 4, 0) };

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().WithMaxDegreeOfParallelism(4));

        Assert.Empty(summary.Errors);
        var payloadGroups = groups.Where(g => g.Match == ContentMatch.MediaPayload).ToList();
        var wholeFileGroups = groups.Where(g => g.Match == ContentMatch.WholeFile).ToList();
        Assert.Equal(Expect.Groups(merged1, merged2, merged3), Scan.Canonical(payloadGroups));
        Assert.Equal(Expect.Groups(t0, t120, copies), Scan.Canonical(wholeFileGroups));
        foreach (var kind in new[] { payloadGroups, wholeFileGroups })
        {
            var paths = kind.SelectMany(g => g.Files.Select(f => f.Path.ToString())).ToList();
            Assert.Equal(paths.Count, paths.Distinct(StringComparer.Ordinal).Count());
            Assert.DoesNotContain(lone, paths);
        }

        var payloadLength = PayloadLength(PngWithData(data[0], 0));
        Assert.All(groups, g => Assert.True(g.VerifiedByBytes));
        Assert.All(payloadGroups, g => Assert.Equal(payloadLength, g.Size));
        Assert.All(wholeFileGroups, g => Assert.Equal(new FileInfo(g.Files[0].Path.ToString()).Length, g.Size));
        Assert.Equal(6, summary.Groups);
    }

    [LinuxFact]
    public async Task Hard_links_of_one_file_are_never_a_group_by_themselves()
    {
        // Each inode has a unique size, so media mode keeps it as a class of one (whole-file mode drops it early).
        using var tree = new TempTree();
        tree.Write("img/a.png", Png(seed: 11, dataLength: 5000, tagLength: 0));
        tree.HardLink("img/a.png", "img/a-link.png");
        tree.Write("big/b.png", Png(seed: 12, dataLength: LargeData, tagLength: 0));
        tree.HardLink("big/b.png", "big/b-link.png");
        tree.Write("txt/n.bin", TempTree.RandomBytes(3333, 13));
        tree.HardLink("txt/n.bin", "txt/n-link.bin");
        tree.Write("empty/e", []);
        tree.HardLink("empty/e", "empty/e-link");

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().IncludeEmptyFiles());

        Assert.Empty(groups);
        Assert.Empty(summary.Errors);
        Assert.Equal(8, summary.FilesScanned);
        Assert.Equal(0, summary.Groups);
    }

    [LinuxFact]
    public async Task A_hard_linked_file_is_one_member_with_its_links_in_payload_and_whole_file_groups()
    {
        using var tree = new TempTree();
        var image = Png(seed: 14, dataLength: 5000, tagLength: 0);
        var a = tree.Write("x/a.png", image);
        var link = tree.HardLink("x/a.png", "y/link.png");
        var copy = tree.Write("x/copy.png", image);
        var retagged = tree.Write("x/retagged.png", Png(seed: 14, dataLength: 5000, tagLength: 40));

        // A second image: linked and copied, but no other payload like it, so a whole-file group.
        var other = Png(seed: 15, dataLength: 4000, tagLength: 0);
        var b = tree.Write("x/b.png", other);
        var bLink = tree.HardLink("x/b.png", "y/b-link.png");
        var bCopy = tree.Write("x/b-copy.png", other);

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());

        Assert.Empty(summary.Errors);
        string Members(params string[] described) => string.Join(" | ", described.Order(StringComparer.Ordinal));
        Assert.Equal(
            new[] { Members($"{a} [{link}]", copy), Members($"{a} [{link}]", retagged), Members($"{b} [{bLink}]", bCopy) }.Order(StringComparer.Ordinal),
            Expect.WithLinks(groups));
        Assert.Equal(retagged, Assert.Single(groups, g => g.Match == ContentMatch.MediaPayload).Files[1].Path.ToString());
        var whole = groups.Where(g => g.Match == ContentMatch.WholeFile).ToList();
        Assert.Equal(2, whole.Count);
        Assert.Equal(image.Length, Assert.Single(whole, g => g.Files.Any(f => f.Path.ToString() == copy)).Size);
        Assert.Equal(other.Length, Assert.Single(whole, g => g.Files.Any(f => f.Path.ToString() == bCopy)).Size);
    }

    [LinuxFact]
    public async Task Empty_files_form_one_whole_file_group_only_when_included_as_in_whole_file_mode()
    {
        using var tree = new TempTree();
        var e1 = tree.Write("e1", []);
        var e2 = tree.Write("sub/e2", []);
        var e3 = tree.Write("sub/e3", []);
        var e3Link = tree.HardLink("sub/e3", "sub/e3-link");
        var png = Png(seed: 16, dataLength: 3000, tagLength: 0);
        tree.Write("one.png", png);

        var (included, includedSummary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().IncludeEmptyFiles());
        var (excluded, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());
        var (wholeFile, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).IncludeEmptyFiles());

        Assert.Empty(includedSummary.Errors);
        var group = Assert.Single(included);
        Assert.Equal(ContentMatch.WholeFile, group.Match);
        Assert.Equal(0, group.Size);
        Assert.Equal(0, group.WastedBytes);
        Assert.Equal(new[] { e1, e2, $"{e3} [{e3Link}]" }.Order(StringComparer.Ordinal), Expect.WithLinks(included).Single().Split(" | "));
        Assert.Empty(excluded);
        Assert.Equal(Expect.WithLinks(wholeFile), Expect.WithLinks(included));
    }

    [Fact]
    public async Task Copies_accepted_on_hashes_make_their_merged_and_whole_file_groups_unverified()
    {
        // Files above 8 KiB (a long tag) go to the strategy in the whole-file stage; payloads below 8 KiB are
        // then settled byte for byte by the probe, so only the classes' own trust can make a group unverified.
        using var tree = new TempTree();
        var image = Png(seed: 17, dataLength: 3000, tagLength: 12_000);
        var merged = new[]
        {
            tree.Write("a/1.png", image), tree.Write("a/2.png", image),
            tree.Write("b/1.png", Png(seed: 17, dataLength: 3000, tagLength: 12_100)),
        };
        var otherImage = Png(seed: 18, dataLength: 3000, tagLength: 12_000);
        var copies = new[] { tree.Write("c/1.png", otherImage), tree.Write("c/2.png", otherImage) };
        Assert.True(PayloadLength(image) <= ProbeStage.WholeReadLimit && image.Length > ProbeStage.WholeReadLimit);

        var (trusted, trustedSummary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().UseComparer(ComparerStrategies.Hashing).TrustHashes());
        var (checkedGroups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().UseComparer(ComparerStrategies.Hashing));

        Assert.Empty(trustedSummary.Errors);
        foreach (var (groups, verified) in new[] { (trusted, false), (checkedGroups, true) })
        {
            Assert.Equal(Expect.Groups(merged[..2], [merged[0], merged[2]], copies), Scan.Canonical(groups));
            var media = Assert.Single(groups, g => g.Match == ContentMatch.MediaPayload);
            Assert.Equal(verified, media.VerifiedByBytes);
            var whole = groups.Where(g => g.Match == ContentMatch.WholeFile).ToList();
            Assert.Equal(2, whole.Count);
            Assert.All(whole, g => Assert.Equal(verified, g.VerifiedByBytes));
        }
    }

    [Fact]
    public async Task Payloads_matched_on_hashes_alone_make_the_merged_group_unverified()
    {
        // Two files of unique sizes (classes of one, verified): only the payload comparison can rest on hashes.
        using var tree = new TempTree();
        var files = new[]
        {
            tree.Write("x.png", Png(seed: 19, dataLength: LargeData, tagLength: 0)),
            tree.Write("y.png", Png(seed: 19, dataLength: LargeData, tagLength: 80)),
        };

        var (trusted, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().UseComparer(ComparerStrategies.Hashing).TrustHashes());
        var (checkedGroups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().UseComparer(ComparerStrategies.Hashing));

        Assert.Equal(Expect.Groups(files), Scan.Canonical(trusted));
        Assert.Equal(Expect.Groups(files), Scan.Canonical(checkedGroups));
        Assert.False(Assert.Single(trusted).VerifiedByBytes);
        Assert.True(Assert.Single(checkedGroups).VerifiedByBytes);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Cancelling_in_either_stage_ends_the_scan_with_OperationCanceledException(bool inPayloadStage)
    {
        using var tree = new TempTree();
        var image = Png(seed: 20, dataLength: LargeData, tagLength: 0);
        tree.Write("a/1.png", image);
        tree.Write("a/2.png", image);
        tree.Write("b/1.png", Png(seed: 20, dataLength: LargeData, tagLength: 60));
        using var cts = new CancellationTokenSource();
        void CancelIf(bool now)
        {
            if (now)
            {
                cts.Cancel();
            }
        }

        var hook = new StageHook(ComparerStrategies.Hybrid)
        {
            AfterWholeFile = _ => CancelIf(!inPayloadStage),
            BeforePayload = _ => CancelIf(inPayloadStage),
        };

        // A hang or a failure other than cancellation (an AggregateException, a timeout) fails the assertion.
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() =>
            Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().UseComparer(hook).WithMaxDegreeOfParallelism(1), cts.Token).WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.True(cts.IsCancellationRequested);
        Assert.Equal(1, hook.WholeFileCalls);
        Assert.Equal(inPayloadStage ? 1 : 0, hook.PayloadCalls);
    }

    [LinuxFact]
    public async Task When_the_representative_vanishes_before_locating_a_live_copy_is_located_instead()
    {
        // Three copies and a retagged variant. Right after the whole-file stage grouped the copies, the member
        // that would be located is deleted: the two live copies still have the variant's payload.
        using var tree = new TempTree();
        var image = Png(seed: 21, dataLength: LargeData, tagLength: 0);
        var copies = new[] { tree.Write("one/a.png", image), tree.Write("one/b.png", image), tree.Write("one/c.png", image) };
        var variant = tree.Write("two/a.png", Png(seed: 21, dataLength: LargeData, tagLength: 100));
        string? deleted = null;
        var hook = new StageHook(ComparerStrategies.Hybrid)
        {
            AfterWholeFile = set =>
            {
                if (deleted is null && set.Length == image.Length)
                {
                    deleted = set[Assert.Single(set.Groups).Members[0]].Primary.Path.ToString();
                    File.Delete(deleted);
                }
            },
        };

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().UseComparer(hook).WithMaxDegreeOfParallelism(1));

        Assert.NotNull(deleted);
        var error = Assert.Single(summary.Errors);
        Assert.Equal((deleted, ScanErrorKind.NotFound), (error.Path, error.Kind));
        var live = copies.Where(c => c != deleted).ToArray();
        Assert.Equal(Expect.Groups(live, [live[0], variant]), Scan.Canonical(groups));
        Assert.Equal(live, Assert.Single(groups, g => g.Match == ContentMatch.WholeFile).Files.Select(f => f.Path.ToString()));
    }

    [LinuxFact]
    public async Task A_copy_rewritten_between_the_stages_is_left_out_of_the_merged_group_and_reported()
    {
        // The copies were settled equal by the whole-file stage; one of them is then edited (same size, other
        // bytes, newer time) before the payload stage. It must not be reported as a duplicate of the variant.
        using var tree = new TempTree();
        var image = Png(seed: 22, dataLength: LargeData, tagLength: 0);
        var copies = new[] { tree.Write("one/a.png", image), tree.Write("one/b.png", image) };
        var variant = tree.Write("two/a.png", Png(seed: 22, dataLength: LargeData, tagLength: 100));
        string? representative = null, edited = null;
        var hook = new StageHook(ComparerStrategies.Hybrid)
        {
            BeforePayload = set =>
            {
                if (edited is null)
                {
                    representative = Enumerable.Range(0, set.Count).Select(i => set[i].Primary.Path.ToString()).Single(copies.Contains);
                    edited = copies.Single(c => c != representative);
                    var bytes = (byte[])image.Clone();
                    bytes[^100] ^= 1;
                    File.WriteAllBytes(edited, bytes);
                    File.SetLastWriteTimeUtc(edited, DateTime.UtcNow.AddMinutes(5));
                }
            },
        };

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().UseComparer(hook).WithMaxDegreeOfParallelism(1));

        Assert.NotNull(edited);
        Assert.Equal(Expect.Groups([representative!, variant]), Scan.Canonical(groups));
        var error = Assert.Single(summary.Errors);
        Assert.Equal((edited, ScanErrorKind.Changed), (error.Path, error.Kind));
    }

    [LinuxFact]
    public async Task When_the_located_copy_vanishes_during_the_payload_comparison_the_next_copy_still_merges()
    {
        // The copy compared for the class is deleted once the payload comparison has begun: the class is compared
        // again through a live copy, and the copies still merge with the retagged variant.
        using var tree = new TempTree();
        var image = Png(seed: 25, dataLength: LargeData, tagLength: 0);
        var copies = new[] { tree.Write("one/a.png", image), tree.Write("one/b.png", image), tree.Write("one/c.png", image) };
        var variant = tree.Write("two/a.png", Png(seed: 25, dataLength: LargeData, tagLength: 100));
        string? deleted = null;
        var hook = new StageHook(ComparerStrategies.Hybrid)
        {
            BeforePayload = set =>
            {
                if (deleted is null)
                {
                    deleted = Enumerable.Range(0, set.Count).Select(i => set[i].Primary.Path.ToString()).Single(copies.Contains);
                    File.Delete(deleted);
                }
            },
        };

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode().UseComparer(hook).WithMaxDegreeOfParallelism(1));

        Assert.NotNull(deleted);
        var error = Assert.Single(summary.Errors);
        Assert.Equal((deleted, ScanErrorKind.NotFound), (error.Path, error.Kind));
        Assert.Equal(2, hook.PayloadCalls); // the first comparison, and the one through the next copy
        var live = copies.Where(c => c != deleted).ToArray();
        Assert.Equal(Expect.Groups(live, [live[0], variant]), Scan.Canonical(groups));
        var group = Assert.Single(groups, g => g.Match == ContentMatch.MediaPayload);
        Assert.True(group.VerifiedByBytes);
        Assert.Equal(live, Assert.Single(groups, g => g.Match == ContentMatch.WholeFile).Files.Select(f => f.Path.ToString()));
    }

    [LinuxFact(RequiresRoot = true, Tool = "setpriv")]
    [SupportedOSPlatform("linux")]
    public async Task Unreadable_files_are_reported_by_the_cli_and_the_readable_classes_still_merge()
    {
        // Root reads chmod-000 files, so the CLI runs as user nobody to meet a real EACCES: one unreadable copy
        // (fails in the whole-file stage) and one unreadable file of a unique size (fails when located).
        using var tree = new TempTree();
        using var cli = new CliAsNobody();
        var image = Png(seed: 24, dataLength: LargeData, tagLength: 0);
        var expected = new[]
        {
            tree.Write("data/one/a.png", image), tree.Write("data/one/b.png", image),
            tree.Write("data/two/a.png", Png(seed: 24, dataLength: LargeData, tagLength: 100)),
        };
        var lockedCopy = tree.Write("data/one/locked.png", image);
        var lockedVariant = tree.Write("data/three/locked.png", Png(seed: 24, dataLength: LargeData, tagLength: 250));
        File.SetUnixFileMode(lockedCopy, UnixFileMode.None);
        File.SetUnixFileMode(lockedVariant, UnixFileMode.None);
        CliAsNobody.MakeTraversable(tree.PathOf("data/one"));
        CliAsNobody.MakeTraversable(tree.PathOf("data/two"));
        CliAsNobody.MakeTraversable(tree.PathOf("data/three"));
        var (exitCode, stdout, stderr) = await cli.RunAsync(["find", tree.PathOf("data"), "--media", "--format", "json"]);

        Assert.True(exitCode == 1, $"exit code {exitCode}; stderr: {stderr}");
        using var json = System.Text.Json.JsonDocument.Parse(stdout);
        var errors = json.RootElement.GetProperty("summary").GetProperty("errors").EnumerateArray()
            .Select(e => $"{e.GetProperty("path").GetString()}: {e.GetProperty("kind").GetString()}").Order(StringComparer.Ordinal);
        Assert.Equal(new[] { $"{lockedCopy}: {nameof(ScanErrorKind.AccessDenied)}", $"{lockedVariant}: {nameof(ScanErrorKind.AccessDenied)}" }.Order(StringComparer.Ordinal), errors);
        // The readable copies are a whole-file group; the payload group relates the first of them to the variant.
        static string[] PathsOf(System.Text.Json.JsonElement group) => [.. group.GetProperty("files").EnumerateArray().Select(f => f.GetProperty("path").GetString()!)];
        var groups = json.RootElement.GetProperty("groups").EnumerateArray().ToList();
        Assert.Equal(2, groups.Count);
        var payload = Assert.Single(groups, g => g.TryGetProperty("match", out _));
        Assert.Equal("mediaPayload", payload.GetProperty("match").GetString());
        Assert.Equal([expected[0], expected[2]], PathsOf(payload));
        Assert.Equal(expected[..2], PathsOf(Assert.Single(groups, g => !g.TryGetProperty("match", out _))));
    }

    /// <summary>A PNG whose only payload-relevant content is <paramref name="dataLength"/> seeded image bytes; the tag changes the file only.</summary>
    private static byte[] Png(int seed, int dataLength, int tagLength) => PngWithData(ByteWriter.Random(dataLength, seed), tagLength);

    private static byte[] PngWithData(byte[] data, int tagLength)
    {
        var tag = tagLength == 0 ? [] : PngFixture.Text("Comment", new string('t', tagLength));
        return ByteWriter.Concat(PngFixture.Signature, PngFixture.Ihdr(), tag, PngFixture.Chunk("IDAT", data), PngFixture.Chunk("IEND", []));
    }

    private static long PayloadLength(byte[] file) => MediaTestSupport.Payload(file)?.Length ?? throw new InvalidOperationException("Fixture PNG not located.");

    /// <summary>The given strategy, with hooks around its calls: whole-file sets (files read without a content map) and payload sets.</summary>
    private sealed class StageHook(IComparerStrategy inner) : IComparerStrategy
    {
        private int _wholeFileCalls;
        private int _payloadCalls;

        public Action<FileComparisonSet>? AfterWholeFile { get; init; }

        public Action<FileComparisonSet>? BeforePayload { get; init; }

        public int WholeFileCalls => Volatile.Read(ref _wholeFileCalls);

        public int PayloadCalls => Volatile.Read(ref _payloadCalls);

        public string Name => "stage-hook";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            var files = (FileComparisonSet)set;
            if (files.ContentMap(0) is null)
            {
                Interlocked.Increment(ref _wholeFileCalls);
                inner.Partition(set, cancellationToken);
                AfterWholeFile?.Invoke(files);
            }
            else
            {
                Interlocked.Increment(ref _payloadCalls);
                BeforePayload?.Invoke(files);
                inner.Partition(set, cancellationToken);
            }
        }
    }
}
