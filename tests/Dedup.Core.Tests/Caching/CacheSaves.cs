using Dedup.Core.Caching;
using Dedup.Core.Enumeration;

namespace Dedup.Core.Tests.Caching;

/// <summary>A whole save in one call, through the one saving path a scan uses (<see cref="HashCache.BeginSave"/>).</summary>
internal static class CacheSaves
{
    public static void Save(this HashCache cache, HashCacheScope scope, IReadOnlyList<HashCacheEntry> upserts, IReadOnlyList<FileIdentity> removals)
    {
        using var writer = cache.BeginSave(scope);
        writer.Write([.. upserts]);
        writer.Commit(removals);
    }
}
