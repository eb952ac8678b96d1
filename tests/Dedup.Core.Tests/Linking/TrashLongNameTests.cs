using System.Text;
using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Topology;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Issue #34 point 10: a file whose name is NAME_MAX (255 bytes) long goes to the trash under a shorter unique name
/// (its info file's name, that name plus <c>.trashinfo</c>, must fit NAME_MAX too); <c>Path=</c> keeps the full original.
/// </summary>
public sealed class TrashLongNameTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 342);

    [LinuxTheory]
    [InlineData("a", ".bin")]
    [InlineData("é", ".txt")] // two bytes a character: the cut never splits one
    public async Task Files_with_255_byte_names_are_trashed_under_shorter_names_with_their_full_paths_in_the_info_files(string unit, string extension)
    {
        using var tree = new LinkTree();
        var home = tree.PathOf("home/Trash");
        var stem = string.Concat(Enumerable.Repeat(unit, (255 - extension.Length - 1) / Encoding.UTF8.GetByteCount(unit)));
        tree.Write("keep/k" + extension, Content);
        var originals = new[] { tree.Write("x/" + stem + "1" + extension, Content), tree.Write("x/" + stem + "2" + extension, Content) };
        Assert.All(originals, o => Assert.Equal(255, Encoding.UTF8.GetByteCount(Path.GetFileName(o))));
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("keep"), tree.PathOf("x")), new TrashLinker(home), KeepRule.PreferUnder(tree.PathOf("keep")));

        var report = await plan.ApplyAsync();

        Assert.Equal(2, report.Done);
        Assert.All(originals, o => Assert.False(File.Exists(o)));
        var trashed = Directory.GetFiles(Path.Combine(home, "files"));
        Assert.Equal(2, trashed.Length);
        var restoredTo = new List<string>();
        foreach (var file in trashed)
        {
            var name = Path.GetFileName(file);
            Assert.True(Encoding.UTF8.GetByteCount(name + ".trashinfo") <= 255, name);
            Assert.StartsWith(stem[..100], name, StringComparison.Ordinal);
            Assert.EndsWith(extension, name, StringComparison.Ordinal);
            Assert.Equal(Content, await File.ReadAllBytesAsync(file));
            var info = await File.ReadAllTextAsync(Path.Combine(home, "info", name + ".trashinfo"));
            var match = System.Text.RegularExpressions.Regex.Match(info, "^\\[Trash Info\\]\nPath=([A-Za-z0-9/_.~%-]+)\nDeletionDate=[0-9T:-]{19}\n$");
            Assert.True(match.Success, info);
            restoredTo.Add(Uri.UnescapeDataString(match.Groups[1].Value));
        }

        Assert.Equal(originals.Order(StringComparer.Ordinal), restoredTo.Order(StringComparer.Ordinal));
    }

    [Fact]
    public void Names_that_fit_are_kept_and_longer_ones_are_cut_before_their_extension_and_counter()
    {
        Assert.Equal("photo.jpg", TrashNames.Candidate("photo.jpg", 1));
        Assert.Equal("photo.3.jpg", TrashNames.Candidate("photo.jpg", 3));
        Assert.Equal(".2.bashrc", TrashNames.Candidate(".bashrc", 2));
        var fits = new string('a', 241) + ".bin"; // 245 bytes: the longest kept whole
        Assert.Equal(fits, TrashNames.Candidate(fits, 1));
        Assert.Equal(new string('a', 239) + ".2.bin", TrashNames.Candidate(fits, 2));
        Assert.Equal(new string('a', 241) + ".bin", TrashNames.Candidate(new string('a', 251) + ".bin", 1));
        var longExtension = "a." + new string('b', 253); // an "extension" this long is part of the name
        Assert.Equal(longExtension[..243] + ".7", TrashNames.Candidate(longExtension, 7));
        Assert.Equal(new string('é', 120) + ".txt", TrashNames.Candidate(new string('é', 125) + ".txt", 1)); // 240 + 4 bytes, not 241
        var extension32 = "." + new string('e', 31); // the longest extension kept as one
        Assert.Equal(new string('a', 213) + extension32, TrashNames.Candidate(new string('a', 250) + extension32, 1));
        Assert.Equal(new string('a', 245), TrashNames.Candidate(new string('a', 250) + "." + new string('e', 4) + extension32[1..], 1)[..245]);
        var notUtf8 = KernelNames.GetString([.. Enumerable.Repeat((byte)0x80, 251), .. ".bin"u8.ToArray()]); // escaped bytes, all "continuation" bytes
        Assert.True(KernelNames.TryGetBytes(TrashNames.Candidate(notUtf8, 1), out var cut));
        Assert.InRange(cut.Length, 242, 245);
        Assert.EndsWith(".bin", TrashNames.Candidate(notUtf8, 1), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true, "tmp", "x", ".Trash-1000", "files")]
    [InlineData(true, "home", "u", ".local", "share", "Trash", "files", "sub")]
    [InlineData(true, "$RECYCLE.BIN", "S-1-5-21-1000")]
    [InlineData(false, "@home", "u")] // a btrfs subvolume mounted as /home: no trash
    [InlineData(false, "srv", "share", "Trash")] // Trash without .local above share
    [InlineData(false, "srv", ".local", "Trash")]
    [InlineData(false)]
    public void A_mounts_root_names_a_trash_only_by_a_trash_folders_names(bool expected, params string[] names)
        => Assert.Equal(expected, TrashLocator.IsTrashByNames(names));
}
