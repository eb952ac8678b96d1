using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Tests.Catalog;

/// <summary>The scan's rows kept for the catalog: naming this machine's files of a group read back.</summary>
public sealed class CatalogRowsTests
{
    [Fact]
    public void The_names_index_is_built_once_not_per_group()
    {
        // A fleet's group read asks for this machine's names once per group: the index by identity must be made once
        // (made per call, a read of n groups costs n passes over every row).
        const int Files = 20_000;
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(AbsolutePath.Parse("/data"));
        for (var i = 0; i < Files; i++)
        {
            // Every tenth file has a second name (a hard link): names chain by identity.
            var row = new FileRow { Identity = new FileIdentity(1, (ulong)i), Length = 100 + i, LastWriteTimeNs = 1, ChangeTimeNs = 2, LinkCount = 1 };
            writer.Add(folder, $"f{i}", row);
            if (i % 10 == 0)
            {
                writer.Add(folder, $"f{i}-link", row);
            }
        }

        writer.Complete();
        var rows = CatalogRows.Take(table);

        Assert.True(rows.TryGetNames(Stamp(0), out var first, out var others));
        Assert.Equal(["/data/f0", "/data/f0-link"], others!.Prepend(first).Select(path => path.ToString()).Order(StringComparer.Ordinal));
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 1; i < 50; i++)
        {
            Assert.True(rows.TryGetNames(Stamp((i * 10) + 1), out _, out var none));
            Assert.Null(none);
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        // 49 lookups: a path each (well under 20 KB); an index made again would be a dictionary and an
        // array of 22,000 entries per lookup (over 500 KB each).
        Assert.True(allocated < 100_000, $"{allocated} bytes allocated by 49 lookups");
        Assert.False(rows.TryGetNames(Stamp(Files + 5), out _, out _));

        static FileStamp Stamp(int i) => new(new FileIdentity(1, (ulong)i), 100 + i, 1, 2);
    }
}
