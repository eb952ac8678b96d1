using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// The keys a rescan's two reads are merged by: a file of the scan is one with the whole stamp (an identity with
/// another size or time is another file, e.g. a deleted file's inode taken by a new one), and a content is its size
/// and every byte of its SHA-256.
/// </summary>
public sealed class CatalogEarlyReadKeysTests
{
    [Fact]
    public void The_scans_names_of_a_stamp_are_those_listed_with_the_whole_stamp()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(AbsolutePath.Parse("/data"));
        var row = new FileRow { Identity = new FileIdentity(1, 7), Length = 100, LastWriteTimeNs = 10, ChangeTimeNs = 20, LinkCount = 2 };
        writer.Add(folder, "a", row);
        writer.Add(folder, "b", row);
        writer.Complete();
        var rows = CatalogRows.Take(table);
        var listed = new FileStamp(row.Identity, 100, 10, 20);

        Assert.True(rows.Contains(listed));
        Assert.True(rows.TryGetNames(listed, out var first, out var others));
        Assert.Equal(["/data/a", "/data/b"], others!.Prepend(first!).Select(path => path.ToString()).Order(StringComparer.Ordinal));
        foreach (var stale in new[] { listed with { Length = 99 }, listed with { LastWriteTimeNs = 11 }, listed with { ChangeTimeNs = 21 }, listed with { Identity = new FileIdentity(1, 8) } })
        {
            Assert.False(rows.Contains(stale));
            Assert.False(rows.TryGetNames(stale, out var none, out var noOthers));
            Assert.Null(none);
            Assert.Null(noOthers);
        }
    }

    [Fact]
    public void A_content_is_its_size_and_every_byte_of_its_digest()
    {
        var sha = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();
        var content = CatalogContent.Of(100, sha);

        Assert.Equal(content, CatalogContent.Of(100, (byte[])sha.Clone()));
        Assert.NotEqual(content, CatalogContent.Of(101, sha));
        for (var i = 0; i < sha.Length; i++)
        {
            var other = (byte[])sha.Clone();
            other[i] ^= 0x80;
            Assert.NotEqual(content, CatalogContent.Of(100, other));
        }

        var stamp = new FileStamp(new FileIdentity(1, 2), 100, 3, 4);
        Assert.Equal(content, CatalogContent.Of(new CatalogDigest(stamp, sha)));
        Assert.Equal(content, CatalogContent.Of(new CatalogGroup(100, sha, [])));
    }
}
