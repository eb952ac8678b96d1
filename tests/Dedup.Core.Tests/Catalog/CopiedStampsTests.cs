using Dedup.Core.Enumeration;
using Dedup.Core.PostgreSql;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// <see cref="CopiedStamps"/>, which a machine's first scan checks each digest against, answers as a set of the copied
/// stamps with one digest taken per identity would: rows in the catalog's key order over several chunks (a hard-linked
/// file's names across a chunk's end, identities that sort below zero as the bigint columns hold them), and rows in any
/// other order.
/// </summary>
public sealed class CopiedStampsTests
{
    [Theory]
    [InlineData(1, true)]
    [InlineData(1023, true)]
    [InlineData(1024, true)]
    [InlineData(1025, true)]
    [InlineData(5000, true)]
    [InlineData(5000, false)]
    public void Each_copied_stamp_is_taken_once_per_identity_and_nothing_else_is(int files, bool inKeyOrder)
    {
        var random = new Random(files);
        var rows = Rows(files, random);
        var stamps = new CopiedStamps();
        foreach (var row in inKeyOrder ? rows : rows.OrderBy(_ => random.Next()).ToList())
        {
            stamps.Add(row);
        }

        // The model: any row with the stamp, and its identity not taken before.
        var copied = rows.ToHashSet();
        var taken = new HashSet<FileIdentity>();
        var asked = new List<FileStamp>();
        foreach (var row in rows)
        {
            asked.Add(row);
            asked.Add(row with { LastWriteTimeNs = row.LastWriteTimeNs + 1 }); // the file changed since it was copied
            asked.Add(row with { Identity = new FileIdentity(row.Identity.Device, row.Identity.FileId + 1) }); // absent, or the next file
            asked.Add(row with { Identity = new FileIdentity(row.Identity.Device, row.Identity.FileId - 1) });
        }

        asked.Add(default); // no row is the zero stamp (an entry never written)
        asked.Add(new FileStamp(new FileIdentity(0, 0), 1, 1, 1));
        asked.Add(new FileStamp(new FileIdentity(ulong.MaxValue, ulong.MaxValue), 1, 1, 1));
        asked.Add(new FileStamp(new FileIdentity(long.MaxValue, long.MaxValue), 1, 1, 1));
        var order = asked.Concat(asked).OrderBy(_ => random.Next()).ToList(); // each asked twice: the second time it is taken
        var answers = 0;
        foreach (var stamp in order)
        {
            var expected = copied.Contains(stamp) && taken.Add(stamp.Identity);
            Assert.True(expected == stamps.TryTake(stamp), $"{stamp}: expected {expected}");
            answers += expected ? 1 : 0;
        }

        Assert.Equal(rows.Select(row => row.Identity).Distinct().Count(), answers);
    }

    [Fact]
    public void A_hard_linked_file_whose_names_span_two_chunks_is_taken_once_whichever_name_comes_first()
    {
        var stamps = new CopiedStamps();
        var rows = new List<FileStamp>();
        for (ulong inode = 1; inode <= 1022; inode++)
        {
            rows.Add(new FileStamp(new FileIdentity(5, inode), 10, 100, 200));
        }

        var linked = new FileStamp(new FileIdentity(5, 2000), 10, 100, 200);
        rows.AddRange([linked, linked, linked, linked]); // entries 1022-1025: the first chunk's last two, the second's first two
        rows.Add(new FileStamp(new FileIdentity(5, 2001), 10, 100, 200));
        foreach (var row in rows)
        {
            stamps.Add(row);
        }

        Assert.True(stamps.TryTake(linked));
        Assert.False(stamps.TryTake(linked));
        Assert.True(stamps.TryTake(new FileStamp(new FileIdentity(5, 2001), 10, 100, 200)));
        Assert.True(stamps.TryTake(new FileStamp(new FileIdentity(5, 1022), 10, 100, 200)));
        Assert.False(stamps.TryTake(new FileStamp(new FileIdentity(5, 1999), 10, 100, 200)));
    }

    [Fact]
    public void The_key_order_is_the_catalogs_device_then_inode_each_a_signed_bigint()
    {
        Assert.True(CopiedStamps.KeyOrder(new FileIdentity(1, 500), new FileIdentity(2, 1)) < 0);
        Assert.True(CopiedStamps.KeyOrder(new FileIdentity(2, 1), new FileIdentity(1, 500)) > 0);
        Assert.True(CopiedStamps.KeyOrder(new FileIdentity(3, 7), new FileIdentity(3, 8)) < 0);
        Assert.Equal(0, CopiedStamps.KeyOrder(new FileIdentity(3, 7), new FileIdentity(3, 7)));
        Assert.True(CopiedStamps.KeyOrder(new FileIdentity(ulong.MaxValue, 1), new FileIdentity(0, 1)) < 0); // -1 as a bigint
        Assert.True(CopiedStamps.KeyOrder(new FileIdentity(5, 0x8000_0000_0000_0000), new FileIdentity(5, 1)) < 0);
    }

    /// <summary>
    /// Files in the catalog's key order (device, then inode, each as a signed bigint), some hard-linked (their names'
    /// rows adjacent, one stamp), on two devices, one of them with inodes whose top bit is set.
    /// </summary>
    private static List<FileStamp> Rows(int count, Random random)
    {
        var rows = new List<FileStamp>();
        var devices = new ulong[] { 0x8000_0000_0000_0001, 3, 0x1_0000_0003 };
        while (rows.Count < count)
        {
            var device = devices[random.Next(devices.Length)];
            var inode = random.Next(4) == 0 ? 0x8000_0000_0000_0000UL | (uint)random.Next() : (ulong)random.Next(1, int.MaxValue);
            var stamp = new FileStamp(new FileIdentity(device, inode), random.Next(0, 1 << 20), random.Next(), random.Next());
            var names = random.Next(10) == 0 ? random.Next(2, 5) : 1;
            for (var i = 0; i < names && rows.Count < count; i++)
            {
                rows.Add(stamp);
            }
        }

        // Sorted by key only, stable: a hard-linked file's names stay adjacent (distinct files never share an identity here).
        var distinct = rows.Select(row => row.Identity).Distinct().Count();
        Assert.Equal(distinct, rows.GroupBy(row => row.Identity).Count(group => group.Distinct().Count() == 1));
        return rows.OrderBy(row => row.Identity, Comparer<FileIdentity>.Create(CopiedStamps.KeyOrder)).ToList();
    }
}
