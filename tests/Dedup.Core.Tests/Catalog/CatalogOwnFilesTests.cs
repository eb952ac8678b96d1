using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A scan's own files by content (<see cref="CatalogOwnFiles"/>): which of them a catalog group of other machines' files
/// gets, on its own, beside the scans through the real catalog (<see cref="CatalogOtherMachinesTests"/>).
/// </summary>
public sealed class CatalogOwnFilesTests
{
    private static readonly CatalogMatch Other = new("peer", new byte[] { (byte)'/', (byte)'p' }, Stamp(10, 99));

    private static CatalogGroup GroupOf(long size, string content) => new(size, Sha(content), [Other]);

    private static List<FileStamp> Own(CatalogOwnFiles own, CatalogGroup group)
    {
        var matches = new List<CatalogMatchRow> { CatalogMatchRow.Of(Other) };
        own.AppendTo(group, "me", matches);
        Assert.All(matches.Skip(1), match => Assert.Equal(("me", 0), (match.Machine, match.Path.Length)));
        return matches.Skip(1).Select(match => match.Stamp).ToList();
    }

    [Fact]
    public void Each_content_gets_its_made_and_listed_stored_files_newest_first_and_an_unlisted_stored_one_is_left_out()
    {
        var own = new CatalogOwnFiles();
        var (stored, gone, made) = (Stamp(10, 1), Stamp(10, 2), Stamp(10, 3));
        own.AddStored(new CatalogDigest(stored, Sha("X")));
        own.AddStored(new CatalogDigest(gone, Sha("X")));
        own.AddMade(new CatalogDigest(made, Sha("X")));
        own.AddMade(new CatalogDigest(Stamp(10, 4), Sha("Y")));
        own.AddMade(new CatalogDigest(Stamp(20, 5), Sha("X"))); // another size: another content
        own.Seal(stamp => stamp != gone);

        Assert.Equal([made, stored], Own(own, GroupOf(10, "X")));
        Assert.Equal([Stamp(10, 4)], Own(own, GroupOf(10, "Y")));
        Assert.Equal([Stamp(20, 5)], Own(own, GroupOf(20, "X")));
        Assert.Empty(Own(own, GroupOf(30, "X")));
    }

    [Fact]
    public void A_file_rewritten_with_the_same_bytes_is_added_under_its_new_stamp_only()
    {
        var own = new CatalogOwnFiles();
        var old = Stamp(10, 1, mtime: 1);
        var rewritten = Stamp(10, 1, mtime: 2); // hashed again: the stored digest's stamp is no longer listed
        own.AddStored(new CatalogDigest(old, Sha("X")));
        own.AddMade(new CatalogDigest(rewritten, Sha("X")));
        own.AddMade(new CatalogDigest(Stamp(10, 2), Sha("X")));
        own.Seal(stamp => stamp != old);

        Assert.Equal([Stamp(10, 2), rewritten], Own(own, GroupOf(10, "X")));
    }

    [Fact]
    public void The_first_held_file_is_found_in_the_order_they_are_added_without_an_unlisted_one()
    {
        var own = new CatalogOwnFiles();
        var (a, b, c) = (Stamp(10, 1), Stamp(10, 2), Stamp(10, 3));
        own.AddStored(new CatalogDigest(a, Sha("X")));
        own.AddStored(new CatalogDigest(b, Sha("X")));
        own.AddMade(new CatalogDigest(c, Sha("X")));
        own.Seal(stamp => stamp != b);
        var held = new Dictionary<FileIdentity, int> { [a.Identity] = 7, [b.Identity] = 8 };

        Assert.Equal(7, own.FirstHeld(GroupOf(10, "X"), identity => held.TryGetValue(identity, out var i) ? i : null));
        held[c.Identity] = 9;
        Assert.Equal(9, own.FirstHeld(GroupOf(10, "X"), identity => held.TryGetValue(identity, out var i) ? i : null));
        Assert.Null(own.FirstHeld(GroupOf(10, "Y"), identity => held.TryGetValue(identity, out var i) ? i : null));
        Assert.Null(own.FirstHeld(GroupOf(10, "X"), static _ => null));
    }

    [Fact]
    public void Thousands_of_digests_from_several_threads_are_all_kept()
    {
        var own = new CatalogOwnFiles();
        Parallel.For(0, 5_000, i => own.AddMade(new CatalogDigest(Stamp(10, (ulong)i + 1), Sha($"c{i % 2_500}"))));
        own.Seal(static _ => true);

        for (var c = 0; c < 2_500; c++)
        {
            Assert.Equal(
                new[] { (ulong)c + 1, (ulong)c + 2_501 },
                Own(own, GroupOf(10, $"c{c}")).Select(stamp => stamp.Identity.FileId).Order());
        }
    }

    [Fact]
    public void A_read_before_the_seal_is_refused()
    {
        var own = new CatalogOwnFiles();
        own.AddMade(new CatalogDigest(Stamp(10, 1), Sha("X")));

        Assert.Contains("sealed", Assert.Throws<InvalidOperationException>(() => own.AppendTo(GroupOf(10, "X"), "me", [])).Message, StringComparison.Ordinal);
        Assert.Contains("sealed", Assert.Throws<InvalidOperationException>(() => own.FirstHeld(GroupOf(10, "X"), static _ => 0)).Message, StringComparison.Ordinal);
    }
}
