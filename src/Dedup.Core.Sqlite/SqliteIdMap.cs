namespace Dedup.Core.Caching.Sqlite;

/// <summary>
/// Gives a save's negative ids new ones from <c>meta.next_id</c> without a table: -k becomes next_id + k - 1, and
/// next_id moves past the largest k used, so equal negative ids get equal new ids and no id is used twice. A scan
/// numbers its new ids -1, -2, ..., so the range is dense.
/// </summary>
internal struct SqliteIdMap(long first)
{
    private long _used;

    /// <summary>The next unused id after this save.</summary>
    public readonly long Next => checked(first + _used);

    public long Map(long id)
    {
        if (id >= 0)
        {
            return id;
        }

        var k = id == long.MinValue ? throw new ArgumentOutOfRangeException(nameof(id), "an id of long.MinValue cannot be mapped") : -id;
        if (k > _used)
        {
            _used = k;
        }

        return checked(first + k - 1);
    }
}
