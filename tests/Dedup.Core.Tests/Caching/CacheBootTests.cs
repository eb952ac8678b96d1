using Dedup.Core.Caching;
using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Caching;

/// <summary>
/// A cache written in an earlier boot is not trusted. A crash can keep bytes written after an entry was saved under the
/// stamp the entry holds (ext4, <c>data=ordered</c>: an <c>fdatasync</c>'d same-size write, then power loss before the
/// journal commits the new mtime and ctime). A test cannot cut power: it makes the cache say what such a crash makes
/// it say (a file's current stamp with another file's probe and class), and reboots by handing the store another boot id.
/// </summary>
public sealed class CacheBootTests : IDisposable
{
    private readonly CacheFixture _fixture = new();

    private TempTree Tree => _fixture.Tree;

    public void Dispose() => _fixture.Dispose();

    [LinuxFact]
    public async Task The_cache_names_the_boot_it_was_written_in()
    {
        Tree.Write("a", TempTree.RandomBytes(3000, 1));
        Tree.Write("b", TempTree.RandomBytes(3000, 1));
        await CacheFixture.LetSettleAsync();

        await _fixture.ScanAsync();

        var boot = (await File.ReadAllTextAsync("/proc/sys/kernel/random/boot_id")).Trim();
        Assert.Equal(CacheSession.Format + ";boot=" + boot, CacheFixture.Scalar(_fixture.CachePath, "SELECT value FROM meta WHERE key = 'format'"));
    }

    [LinuxFact]
    public async Task After_a_reboot_entries_that_lie_about_a_file_are_not_believed()
    {
        var same = TempTree.RandomBytes(3000, 1);
        Tree.Write("a", same);
        Tree.Write("b", same);
        await CacheFixture.LetSettleAsync();
        var (first, _) = await _fixture.ScanAsync();
        var identities = Assert.Single(first).Files.ToDictionary(file => file.Path.ToString(), file => file.Identity);

        // b gets other bytes of the same size; the rescan caches a and b in two classes under their current stamps.
        Tree.Write("b", TempTree.RandomBytes(3000, 2));
        await CacheFixture.LetSettleAsync();
        Assert.Empty((await _fixture.ScanAsync()).Groups);

        // What the crash leaves: b's stamp as the cache knows it, with bytes other than those the cache compared.
        var store = new SqliteHashCache(_fixture.CachePath);
        var scope = new HashCacheScope((string)CacheFixture.Scalar(_fixture.CachePath, "SELECT value FROM meta WHERE key = 'format'")!, 0);
        var entries = store.Load(scope).Entries;
        var a = Assert.Single(entries, entry => entry.Stamp.Identity == identities[Tree.PathOf("a")]);
        var b = Assert.Single(entries, entry => entry.Stamp.Identity == identities[Tree.PathOf("b")]);
        Assert.NotEqual(a.Probe, b.Probe);
        store.Save(scope, [b with { Probe = a.Probe, Partition = a.Partition, Class = a.Class }], []);

        // In the boot that wrote it the cache is believed (the stamps did not move): this is what a crash would exploit.
        var (believed, believedSummary) = await _fixture.ScanAsync();
        Assert.True(Assert.Single(believed).VerifiedByBytes);
        Assert.Equal(0, believedSummary.BytesRead);

        var (groups, summary) = await Scan.RunAsync(builder => builder.AddRoot(Tree.Root).UseCache(new RebootedCache(store, "after-a-crash")));

        Assert.Empty(groups);
        Assert.Equal(await _fixture.BaselineAsync(), Scan.Canonical(groups));
        Assert.Equal(0, summary.Cache!.Hits);
        Assert.Equal(2, summary.Cache.Misses);
        Assert.Empty(summary.Cache.Warnings);
        // The save of the new boot replaced the old boot's entries.
        Assert.EndsWith(";boot=after-a-crash", (string)CacheFixture.Scalar(_fixture.CachePath, "SELECT value FROM meta WHERE key = 'format'")!, StringComparison.Ordinal);
        Assert.Equal(2, _fixture.CountEntries());
    }

    /// <summary>The store as a scan sees it after a reboot: the boot named in the scan's format is another one.</summary>
    private sealed class RebootedCache(HashCache store, string boot) : HashCache
    {
        public override string Description => store.Description;

        public override HashCacheSnapshot Load(HashCacheScope scope, CancellationToken cancellationToken = default) =>
            store.Load(Rebooted(scope), cancellationToken);

        public override HashCacheWriter BeginSave(HashCacheScope scope) => store.BeginSave(Rebooted(scope));

        private HashCacheScope Rebooted(HashCacheScope scope) => scope with { Format = scope.Format.Replace(BootMark.Current, ";boot=" + boot, StringComparison.Ordinal) };
    }
}
