using System.Security.Cryptography;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// Writes a seeded, deterministic tree of real files (unique files, duplicate sets, same-size distinct
/// files, near-twins differing in one byte, hard links, empty files, sizes from 0 to 2 MiB) and records
/// as it writes which files hold equal content. The expectation is keyed by SHA-256 of the bytes written,
/// never by anything the library computes, so the library is checked against an independent record.
/// </summary>
public sealed class TreeGenerator
{
    private static readonly string[] FolderStems = ["d", "Фото", "データ", "with space", "x.y"];

    private readonly Random _random;
    private readonly string _root;
    private readonly List<string> _folders = [string.Empty];
    private readonly List<WrittenFile> _files = [];
    private int _serial;
    private int _nameCount;

    private TreeGenerator(string root, int seed)
    {
        _root = root;
        _random = new Random(seed);
    }

    /// <summary>Writes the tree under <paramref name="root"/> and returns what was written and expected.</summary>
    public static GeneratedTree Generate(string root, int seed, int fileCount = 1500)
    {
        var generator = new TreeGenerator(root, seed);
        generator.Build(fileCount);
        return new GeneratedTree(root, generator._nameCount, generator._files.Sum(f => f.Length), generator._files);
    }

    private void Build(int fileCount)
    {
        for (var i = 0; i < 40; i++)
        {
            var parent = _folders[_random.Next(_folders.Count)];
            var name = $"{FolderStems[_random.Next(FolderStems.Length)]}{i:D2}";
            _folders.Add(parent.Length == 0 ? name : $"{parent}/{name}");
        }

        // Fixed cases around every threshold of the pipeline (4 KiB probe, 8 KiB whole read, 64 KiB suffix
        // probe, 128/256 KiB read chunks), so they are present whatever the seed.
        foreach (var size in (int[])[1, 2, 4095, 4096, 4097, 8191, 8192, 8193, 65535, 65536, 65537, 262_144, 262_145, 2 * 1024 * 1024])
        {
            NearTwins(size, twins: 1, positions: [0, size / 2, size - 1]);
        }

        // More than 64 copies: the pairwise and whole-file-hash paths; 4 to 64: the hashed lockstep path.
        var many = RandomBytes(9000);
        for (var i = 0; i < 70; i++)
        {
            Write(many);
        }

        SameSizeDistinct(9000, 3);
        Write(Flip(many, 4500));
        var medium = RandomBytes(300_000);
        for (var i = 0; i < 10; i++)
        {
            Write(medium);
        }

        Write(Flip(medium, 150_000));

        while (_nameCount < fileCount)
        {
            var pick = _random.NextDouble();
            if (pick < 0.35)
            {
                Write(RandomBytes(RandomSize()));
            }
            else if (pick < 0.60)
            {
                var content = RandomBytes(RandomSize());
                var copies = _random.Next(2, 7);
                for (var i = 0; i < copies; i++)
                {
                    Write(content);
                }
            }
            else if (pick < 0.75)
            {
                SameSizeDistinct(RandomSize(), _random.Next(2, 6));
            }
            else if (pick < 0.85)
            {
                var size = RandomSize();
                NearTwins(size, _random.Next(0, 3), [0, size / 2, size - 1]);
            }
            else if (pick < 0.95)
            {
                var target = _files[_random.Next(_files.Count)];
                for (var i = _random.Next(1, 3); i > 0; i--)
                {
                    Link(target);
                }
            }
            else
            {
                Write([]);
            }
        }
    }

    private void NearTwins(int size, int twins, int[] positions)
    {
        var original = RandomBytes(size);
        Write(original);
        for (var i = 0; i < twins; i++)
        {
            Write(original);
        }

        foreach (var position in positions.Distinct())
        {
            Write(Flip(original, position));
        }
    }

    private void SameSizeDistinct(int size, int count)
    {
        for (var i = 0; i < count; i++)
        {
            Write(RandomBytes(size));
        }
    }

    private static byte[] Flip(byte[] original, int position)
    {
        var copy = (byte[])original.Clone();
        copy[position] ^= 0x5A;
        return copy;
    }

    private int RandomSize()
    {
        var r = _random.NextDouble();
        return r < 0.70 ? _random.Next(1, 8193)
            : r < 0.95 ? _random.Next(8193, 65537)
            : r < 0.995 ? _random.Next(65537, 300_001)
            : _random.Next(300_001, (2 * 1024 * 1024) + 1);
    }

    private byte[] RandomBytes(int size)
    {
        var bytes = new byte[size];
        _random.NextBytes(bytes);
        return bytes;
    }

    private string NewName(string prefix)
    {
        var folder = _folders[_random.Next(_folders.Count)];
        var name = $"{prefix}{_serial++:D5}.bin";
        return folder.Length == 0 ? name : $"{folder}/{name}";
    }

    private void Write(byte[] content)
    {
        var relative = NewName("f");
        var full = Path.Combine(_root, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        File.WriteAllBytes(full, content);
        var key = $"{content.Length}:{Convert.ToHexString(SHA256.HashData(content))}";
        _files.Add(new WrittenFile(key, content.Length, [full]));
        _nameCount++;
    }

    private void Link(WrittenFile target)
    {
        var full = Path.Combine(_root, NewName("l"));
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        TempTree.Run("ln", target.Names[0], full);
        target.Names.Add(full);
        _nameCount++;
    }
}

/// <summary>One file (inode) the generator wrote, with every name it gave it.</summary>
public sealed record WrittenFile(string ContentKey, long Length, List<string> Names);

/// <summary>The result of <see cref="TreeGenerator.Generate"/>.</summary>
public sealed class GeneratedTree(string root, int nameCount, long totalBytes, IReadOnlyList<WrittenFile> files)
{
    public string Root { get; } = root;

    /// <summary>Regular-file names written (hard links counted once per name).</summary>
    public int NameCount { get; } = nameCount;

    public long TotalBytes { get; } = totalBytes;

    public IReadOnlyList<WrittenFile> Files { get; } = files;

    /// <summary>
    /// The expected groups in the form of <see cref="Expect.WithLinks"/>: files of equal content, two or
    /// more distinct inodes each; a file's primary path is its first name in component-wise order.
    /// </summary>
    public List<string> ExpectedGroups(bool includeEmpty = false) =>
        Files.Where(f => includeEmpty || f.Length > 0)
            .GroupBy(f => f.ContentKey)
            .Where(g => g.Count() >= 2)
            .Select(g => string.Join(" | ", g.Select(Describe).Order(StringComparer.Ordinal)))
            .Order(StringComparer.Ordinal)
            .ToList();

    /// <summary>The expected number of groups.</summary>
    public int ExpectedGroupCount => ExpectedGroups().Count;

    private static string Describe(WrittenFile file)
    {
        var names = file.Names.Order(ComponentOrder.Instance).ToList();
        return names.Count == 1 ? names[0] : $"{names[0]} [{string.Join(", ", names.Skip(1))}]";
    }
}

/// <summary>Orders paths name by name (ordinal per name, a folder before its contents): the documented path order.</summary>
public sealed class ComponentOrder : IComparer<string>
{
    public static ComponentOrder Instance { get; } = new();

    public int Compare(string? x, string? y)
    {
        var a = (x ?? string.Empty).Split('/');
        var b = (y ?? string.Empty).Split('/');
        for (var i = 0; i < Math.Min(a.Length, b.Length); i++)
        {
            var c = string.CompareOrdinal(a[i], b[i]);
            if (c != 0)
            {
                return c;
            }
        }

        return a.Length.CompareTo(b.Length);
    }
}
