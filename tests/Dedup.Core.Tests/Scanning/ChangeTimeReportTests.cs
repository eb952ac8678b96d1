using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Media.Fixtures;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Every reported file carries the change time its last check saw (reports use it to recognise the very file later),
/// whichever stage settled its group: small files read whole, probed files compared in full, media payloads.
/// </summary>
public sealed class ChangeTimeReportTests
{
    [LinuxTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Every_reported_file_has_its_change_time(bool media)
    {
        using var tree = new TempTree();
        foreach (var (size, seed) in new[] { (100, 1), (6000, 2), (300_000, 3) })
        {
            var content = TempTree.RandomBytes(size, seed);
            tree.Write($"a/{size}.bin", content);
            tree.Write($"b/{size}.bin", content);
            tree.Write($"c/{size}.bin", content);
        }

        if (media)
        {
            // The same audio under two tags of different sizes: a group settled by the payload stage alone.
            var audio = Mp3Fixture.Audio(7);
            tree.Write("m/first.mp3", ByteWriter.Concat(Mp3Fixture.Id3v2(3, "first title", padding: 10), audio));
            tree.Write("m/second.mp3", ByteWriter.Concat(Mp3Fixture.Id3v2(4, "another, longer title", padding: 300), audio));
        }

        var (groups, _) = await Scan.RunAsync(b => { b.AddRoot(tree.Root); if (media) { b.UseMediaMode(); } });

        Assert.Equal(media ? 4 : 3, groups.Count);
        Assert.Equal(media ? 1 : 0, groups.Count(g => g.Match == ContentMatch.MediaPayload));
        foreach (var file in groups.SelectMany(g => g.Files))
        {
            Assert.Equal(0, Linking.TestNative.FileStatusOf(file.Path.ToString(), out var status));
            Assert.Equal(status.ChangeTimeUtc, file.LastChangeTimeUtc);
        }
    }
}
