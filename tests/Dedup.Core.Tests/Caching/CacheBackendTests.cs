using System.Reflection;
using Dedup.Core.Caching;
using Dedup.Core.Enumeration;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Caching;

/// <summary>
/// A cache backend of one's own has one way to save (#36 point 9): it overrides <see cref="HashCache.Load"/> and
/// <see cref="HashCache.BeginSave"/> only, and a scan then caches, settles a rescan without reading and prunes through it.
/// </summary>
public sealed class CacheBackendTests : IDisposable
{
    private static readonly byte[] Content = TempTree.RandomBytes(5000, 41);

    private readonly TempTree _tree = new();

    public void Dispose() => _tree.Dispose();

    [LinuxFact]
    public async Task A_backend_with_only_Load_and_BeginSave_caches_a_scan_settles_the_rescan_without_reading_and_prunes()
    {
        _tree.Write("a", Content);
        _tree.Write("b", Content);
        _tree.Write("c", TempTree.RandomBytes(5000, 42));
        await CacheFixture.LetSettleAsync();
        var store = new MemoryCache();

        var (first, firstSummary) = await Scan.RunAsync(b => b.AddRoot(_tree.Root).UseCache(store));
        Assert.Equal(3, firstSummary.Cache!.Written);
        Assert.Equal(3, store.Count);
        Assert.Equal(1, store.WritersDisposed); // the scan disposes its writer, so a store's connection is released

        var (second, secondSummary) = await Scan.RunAsync(b => b.AddRoot(_tree.Root).UseCache(store));
        Assert.Equal(Scan.Canonical(first), Scan.Canonical(second));
        Assert.True(Assert.Single(second).VerifiedByBytes);
        Assert.Equal(3, secondSummary.Cache!.Hits);
        Assert.Equal(0, secondSummary.BytesRead);
        Assert.Empty(secondSummary.Cache.Warnings);

        File.Delete(_tree.PathOf("c"));
        var (third, thirdSummary) = await Scan.RunAsync(b => b.AddRoot(_tree.Root).UseCache(store));
        Assert.Equal(Scan.Canonical(first), Scan.Canonical(third));
        Assert.Equal(1, thirdSummary.Cache!.Pruned);
        Assert.Equal(2, store.Count);
    }

    [Fact]
    public void HashCache_offers_one_saving_path()
    {
        var overridable = typeof(HashCache).GetMembers(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.DeclaredOnly)
            .OfType<MethodInfo>()
            .Where(m => (m.IsPublic || m.IsFamily || m.IsFamilyOrAssembly) && (m.IsAbstract || m.IsVirtual))
            .Select(m => m.Name)
            .Order(StringComparer.Ordinal);

        Assert.Equal(["BeginSave", "Load", "get_Description"], overridable);
        Assert.True(typeof(HashCache).GetMethod(nameof(HashCache.BeginSave))!.IsAbstract);
        Assert.DoesNotContain(typeof(HashCache).Assembly.GetExportedTypes(), t => t.Name == "HashCacheChanges");
    }

    /// <summary>The smallest backend: entries in memory by format, new ids from a counter that only grows.</summary>
    private sealed class MemoryCache : HashCache
    {
        private readonly Dictionary<string, Dictionary<FileIdentity, HashCacheEntry>> _formats = [];
        private long _nextId = 1;

        public int Count => _formats.Values.Sum(f => f.Count);

        public int WritersDisposed { get; private set; }

        public override string Description => "memory";

        public override HashCacheSnapshot Load(HashCacheScope scope, CancellationToken cancellationToken = default) =>
            new(_formats.TryGetValue(scope.Format, out var entries) ? [.. entries.Values] : []);

        public override HashCacheWriter BeginSave(HashCacheScope scope) => new Writer(this, scope);

        private sealed class Writer(MemoryCache cache, HashCacheScope scope) : HashCacheWriter
        {
            private readonly List<HashCacheEntry> _entries = [];
            private readonly Dictionary<long, long> _ids = [];

            public override void Write(ReadOnlySpan<HashCacheEntry> entries, CancellationToken cancellationToken = default)
            {
                foreach (var entry in entries)
                {
                    _entries.Add(entry with { Partition = Id(entry.Partition), Class = Id(entry.Class) });
                }
            }

            public override void Commit(IReadOnlyList<FileIdentity> removals, CancellationToken cancellationToken = default)
            {
                if (!cache._formats.TryGetValue(scope.Format, out var stored))
                {
                    cache._formats.Clear(); // entries of another format are never read again
                    cache._formats[scope.Format] = stored = [];
                }

                foreach (var identity in removals)
                {
                    stored.Remove(identity);
                }

                foreach (var entry in _entries)
                {
                    stored[entry.Stamp.Identity] = entry;
                }
            }

            protected override void Dispose(bool disposing)
            {
                if (disposing)
                {
                    cache.WritersDisposed++;
                }
            }

            private long Id(long id)
            {
                if (id >= 0)
                {
                    return id;
                }

                if (!_ids.TryGetValue(id, out var mapped))
                {
                    _ids[id] = mapped = cache._nextId++;
                }

                return mapped;
            }
        }
    }
}
