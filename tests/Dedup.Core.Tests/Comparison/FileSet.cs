using System.Security.Cryptography;

namespace Dedup.Core.Tests.Comparison;

/// <summary>A set of equal-length files on disk, with their SHA-256 digests taken before any was shrunk.</summary>
internal sealed class FileSet
{
    private static readonly int[] Counts = [2, 2, 3, 3, 4, 5, 6, 9, 16, 33, 63, 64, 65, 66, 80];
    private static readonly int[] Lengths = [0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4095, 4096, 4097];
    private static readonly int[] LargeLengths = [StrategyChecks.MaxLockstepChunk - 1, StrategyChecks.MaxLockstepChunk, StrategyChecks.MaxLockstepChunk + 1, StrategyChecks.HashChunk + 17];
    private static readonly int[] ChunkSizes = [1, 3, 16, 64, 100, 4096, 65_536, 200_000, 2 * StrategyChecks.HashChunk];

    private readonly string[] _digests;

    private FileSet(List<string> paths, List<byte[]> contents, int chunkSize, IReadOnlyDictionary<int, long> shrinkTo)
    {
        Paths = paths;
        Contents = contents;
        Length = contents.Count == 0 ? 0 : contents[0].Length;
        ChunkSize = chunkSize;
        Shrunk = [.. shrinkTo.Keys];
        _digests = paths.Select(p => Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(p)))).ToArray();
        foreach (var (index, newLength) in shrinkTo)
        {
            using var stream = new FileStream(paths[index], FileMode.Open, FileAccess.Write);
            stream.SetLength(newLength);
        }
    }

    public List<string> Paths { get; }

    public List<byte[]> Contents { get; }

    public long Length { get; }

    public int ChunkSize { get; }

    public HashSet<int> Shrunk { get; }

    public static FileSet Make(int seed, string folder)
    {
        var random = new Random(seed);
        var count = Counts[random.Next(Counts.Length)];
        int length;
        if (seed % 8 == 7)
        {
            // Lengths at the lockstep chunk's cap and past the hash chunk, in few files.
            length = LargeLengths[random.Next(LargeLengths.Length)];
            count = Math.Min(count, 2 + random.Next(4));
        }
        else
        {
            length = random.Next(3) == 0 ? random.Next(1, 20_000) : Lengths[random.Next(Lengths.Length)];
        }

        // No more than ~64 chunks per file (a read of a byte at a time is right but slow).
        var chunks = ChunkSizes.Where(c => (long)c * 64 >= length).ToArray();
        var chunk = chunks[random.Next(chunks.Length)];

        var classes = new List<byte[]> { RandomBytes(random, length) };
        for (var k = random.Next(Math.Min(count, 6)); k > 0; k--)
        {
            // Near-twins of the first content (one byte changed) or unrelated contents.
            classes.Add(random.Next(2) == 0 && length > 0 ? Changed(classes[0], random, chunk) : RandomBytes(random, length));
        }

        var contents = new List<byte[]>();
        for (var i = 0; i < count; i++)
        {
            var content = classes[random.Next(classes.Count)];
            contents.Add(random.Next(5) == 0 && length > 0 ? Changed(content, random, chunk) : content);
        }

        var shrinkTo = new Dictionary<int, long>();
        if (length > 0 && random.Next(3) == 0)
        {
            for (var k = 1 + random.Next(3); k > 0; k--)
            {
                shrinkTo[random.Next(count)] = random.Next(length);
            }
        }

        return Write(folder, contents, chunk, shrinkTo);
    }

    /// <summary>Writes the files, takes their digests, then shrinks those in <paramref name="shrinkTo"/> to the given lengths.</summary>
    public static FileSet Write(string folder, List<byte[]> contents, int chunk, IReadOnlyDictionary<int, long>? shrinkTo = null)
    {
        Directory.CreateDirectory(folder);
        var paths = new List<string>();
        for (var i = 0; i < contents.Count; i++)
        {
            var path = Path.Combine(folder, $"f{i}");
            File.WriteAllBytes(path, contents[i]);
            paths.Add(path);
        }

        return new FileSet(paths, contents, chunk, shrinkTo ?? new Dictionary<int, long>());
    }

    /// <summary>The groups the SHA-256 digests make among the files not shrunk.</summary>
    public List<string> Expected() =>
        Enumerable.Range(0, Paths.Count)
            .Where(i => !Shrunk.Contains(i))
            .GroupBy(i => _digests[i])
            .Where(g => g.Count() >= 2)
            .Select(g => string.Join(",", g.Order()))
            .Order(StringComparer.Ordinal)
            .ToList();

    public string Digest(int index) => _digests[index];

    /// <summary>How many files not shrunk have file <paramref name="index"/>'s digest.</summary>
    public int ClassSize(int index) =>
        Enumerable.Range(0, Paths.Count).Count(i => !Shrunk.Contains(i) && _digests[i] == _digests[index]);

    /// <summary>A copy with one byte changed: the first, the last, either side of a chunk boundary, or anywhere.</summary>
    private static byte[] Changed(byte[] content, Random random, int chunk)
    {
        var copy = (byte[])content.Clone();
        var boundary = chunk * (long)random.Next(1, (int)Math.Max(1, copy.Length / chunk) + 1);
        var offset = random.Next(5) switch
        {
            0 => 0,
            1 => copy.Length - 1,
            2 => boundary - 1,
            3 => boundary,
            _ => random.Next(copy.Length),
        };
        offset = Math.Clamp(offset, 0, copy.Length - 1);
        copy[offset] ^= (byte)random.Next(1, 256);
        return copy;
    }

    private static byte[] RandomBytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
