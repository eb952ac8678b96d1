using System.Runtime.CompilerServices;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// <see cref="PostgresCatalog.ReplaceFilesAndRecordDigestsAsync"/>: a scan's files and the digests it makes while it
/// compares go to the catalog in one transaction, the digests as they arrive.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogStreamedDigestTests(PostgresFixture postgres)
{
    [PostgresFact]
    public async Task Files_and_digests_become_visible_together_once_the_last_digest_arrived()
    {
        await using var catalog = postgres.NewCatalog("streamed");
        var files = new[] { File("/m/a", 100, 1), File("/m/b", 100, 2), File("/m/c", 100, 3) };
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var sent = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var replace = catalog.ReplaceFilesAndRecordDigestsAsync("m", files, Digests(files, sent, release.Task));
        await sent.Task.WaitAsync(TimeSpan.FromSeconds(30));

        // The files are copied and a digest sent; until the digests end, other clients see nothing of the scan.
        Assert.DoesNotContain(await catalog.GetMachinesAsync(), machine => machine.Name == "m");
        Assert.Empty(await catalog.GetDigestedFilesAsync("m"));
        Assert.False(replace.IsCompleted);

        release.SetResult();
        Assert.Equal(3, await replace);
        Assert.Equal(3, (await catalog.GetMachinesAsync()).Single(machine => machine.Name == "m").Files);
        Assert.Equal(files.Select(file => file.Stamp.Identity.FileId), (await catalog.GetDigestedFilesAsync("m")).Select(stamp => stamp.Identity.FileId).Order());
    }

    [PostgresFact]
    public async Task A_first_scans_digests_keep_only_stamps_of_its_files_and_the_first_per_file()
    {
        await using var catalog = postgres.NewCatalog("streamed-first");
        var files = new[] { File("/m/a", 100, 1), File("/m/a-link", 100, 1), File("/m/b", 100, 2) };
        CatalogDigest[] digests =
        [
            Digest(files[0], "x"),
            Digest(files[1], "other"), // the same file again (a hard link): the first counts
            Digest(File("/m/b", 100, 2, mtime: 5), "x"), // a stamp none of the files has: the file changed
            Digest(File("/m/gone", 100, 9), "x"), // no such file
        ];

        Assert.Equal(3, await catalog.ReplaceFilesAndRecordDigestsAsync("m", files, ToAsync(digests)));

        Assert.Equal([files[0].Stamp], await catalog.GetDigestedFilesAsync("m"));
        await catalog.ReplaceMachineFilesAsync("n", [File("/n/x", 100, 1)]);
        await catalog.RecordDigestsAsync("n", [Digest(File("/n/x", 100, 1), "x")]);
        var names = Names(Assert.Single(await catalog.FindGroupsAsync("n")));
        Assert.Contains("m:/m/a", names);
        Assert.Contains("n:/n/x", names);
        Assert.DoesNotContain("m:/m/b", names);
    }

    [PostgresFact]
    public async Task A_first_scans_digests_are_checked_against_its_files_in_identity_order_or_not()
    {
        // In identity order (as a scan hands them over), across several of the check's chunks; then the same out of order.
        var ordered = Enumerable.Range(1, 3_000).Select(i => File($"/m/{i}", 100 + (i % 7), (ulong)i)).ToList();
        foreach (var (name, files) in new[] { ("ordered", ordered), ("shuffled", ordered.OrderBy(file => (file.Stamp.Identity.FileId * 7919) % 3001).ToList()) })
        {
            await using var catalog = postgres.NewCatalog($"streamed-{name}");
            // Every even file once, in reverse; every fourth twice (the first counts); a stale stamp of file 3; files past the last.
            var digests = ordered.Where(file => file.Stamp.Identity.FileId % 2 == 0).Reverse().Select(file => Digest(file, "x"))
                .Concat(ordered.Where(file => file.Stamp.Identity.FileId % 4 == 0).Select(file => Digest(file, "other")))
                .Append(Digest(File("/m/3", 100 + 3, 3, mtime: 5), "x"))
                .Append(Digest(File("/m/9000", 100, 9_000), "x"))
                .Append(Digest(File("/m/0", 100, 0), "x"))
                .ToArray();

            Assert.Equal(3_000, await catalog.ReplaceFilesAndRecordDigestsAsync("m", files, ToAsync(digests)));

            var stored = await catalog.GetDigestedFilesAsync("m");
            Assert.Equal(ordered.Where(file => file.Stamp.Identity.FileId % 2 == 0).Select(file => file.Stamp.Identity.FileId), stored.Select(stamp => stamp.Identity.FileId).Order());
            Assert.All(stored, stamp => Assert.Equal(ordered[(int)stamp.Identity.FileId - 1].Stamp, stamp));
            await catalog.ReplaceMachineFilesAsync("n", [File("/n/x", 104, 1)]);
            await catalog.RecordDigestsAsync("n", [Digest(File("/n/x", 104, 1), "x")]);
            // The files of size 104 with digest "x": the even ones whose first digest was "x" (all of them).
            var group = Assert.Single(await catalog.FindGroupsAsync("n"));
            Assert.Equal(1 + ordered.Count(file => file.Stamp.Length == 104 && file.Stamp.Identity.FileId % 2 == 0), group.Files.Count);
        }
    }

    [PostgresFact]
    public async Task A_rescan_through_the_one_call_keeps_unchanged_digests_and_records_new_ones()
    {
        await using var catalog = postgres.NewCatalog("streamed-rescan");
        var first = new[] { File("/m/a", 100, 1), File("/m/b", 100, 2) };
        await catalog.ReplaceFilesAndRecordDigestsAsync("m", first, ToAsync([Digest(first[0], "a"), Digest(first[1], "b")]));

        var edited = File("/m/b", 100, 2, mtime: 1_800_000_000_000_000_000, ctime: 1_800_000_000_000_000_000);
        var second = new[] { first[0], edited, File("/m/c", 100, 3) };
        Assert.Equal(3, await catalog.ReplaceFilesAndRecordDigestsAsync("m", second, ToAsync([Digest(edited, "a"), Digest(second[2], "c")])));

        Assert.Equal(second.Select(file => file.Stamp).OrderBy(stamp => stamp.Identity.FileId), (await catalog.GetDigestedFilesAsync("m")).OrderBy(stamp => stamp.Identity.FileId));
        var group = Assert.Single(await catalog.FindGroupsAsync("m"));
        Assert.Equal(["m:/m/a", "m:/m/b"], Names(group));
    }

    [PostgresFact]
    public async Task Digests_that_fail_midway_roll_back_the_files_too_and_the_previous_scan_stays()
    {
        await using var catalog = postgres.NewCatalog("streamed-failed");
        var first = new[] { File("/m/a", 100, 1), File("/m/b", 100, 2) };
        await catalog.ReplaceFilesAndRecordDigestsAsync("m", first, ToAsync([Digest(first[0], "a")]));

        var second = new[] { File("/m/c", 100, 3) };
        await Assert.ThrowsAsync<InvalidOperationException>(() => catalog.ReplaceFilesAndRecordDigestsAsync("m", second, Failing(Digest(second[0], "c"))));
        await Assert.ThrowsAsync<InvalidOperationException>(() => catalog.ReplaceFilesAndRecordDigestsAsync("new", second, Failing(Digest(second[0], "c"))));

        Assert.Equal(2, (await catalog.GetMachinesAsync()).Single(machine => machine.Name == "m").Files);
        Assert.DoesNotContain(await catalog.GetMachinesAsync(), machine => machine.Name == "new");
        Assert.Equal([first[0].Stamp], await catalog.GetDigestedFilesAsync("m"));
    }

    private static async IAsyncEnumerable<CatalogDigest> Digests(CatalogFile[] files, TaskCompletionSource sent, Task release)
    {
        yield return Digest(files[0], "same");
        sent.SetResult();
        await release;
        foreach (var file in files.Skip(1))
        {
            yield return Digest(file, "same");
        }
    }

    private static async IAsyncEnumerable<CatalogDigest> ToAsync(IEnumerable<CatalogDigest> digests)
    {
        foreach (var digest in digests)
        {
            await Task.Yield();
            yield return digest;
        }
    }

    private static async IAsyncEnumerable<CatalogDigest> Failing(CatalogDigest first, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        yield return first;
        await Task.Delay(10, cancellationToken);
        throw new InvalidOperationException("the scan failed");
    }
}
