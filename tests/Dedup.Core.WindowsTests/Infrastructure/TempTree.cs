namespace Dedup.Core.WindowsTests.Infrastructure;

/// <summary>A real temporary folder for one test (under the temp folder, so on a fixed drive), deleted afterwards.</summary>
internal sealed class TempTree : IDisposable
{
    /// <param name="parent">Where to make it; the temp folder by default.</param>
    public TempTree(string? parent = null)
    {
        Root = Path.Combine(parent ?? Path.GetTempPath(), "dedup-wintests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Root);
    }

    public string Root { get; }

    public string PathOf(string relative) => Path.Combine(Root, relative.Replace('/', Path.DirectorySeparatorChar));

    /// <summary>Writes a file (creating folders) and returns its full path.</summary>
    public string Write(string relative, byte[] content)
    {
        var full = PathOf(relative);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        File.WriteAllBytes(full, content);
        return full;
    }

    public string Write(string relative, string content) => Write(relative, System.Text.Encoding.UTF8.GetBytes(content));

    /// <summary>Creates <paramref name="link"/> (relative) as a second name of <paramref name="existing"/> (full path).</summary>
    public string HardLink(string existing, string link)
    {
        var full = PathOf(link);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        Win32.CreateHardLink(full, existing);
        return full;
    }

    /// <summary>The path relative to the root, with '/' separators, for comparing groups.</summary>
    public string Relative(string full) => Path.GetRelativePath(Root, full).Replace(Path.DirectorySeparatorChar, '/');

    public static byte[] RandomBytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    public void Dispose()
    {
        try
        {
            foreach (var file in Directory.EnumerateFiles(Root, "*", SearchOption.AllDirectories))
            {
                File.SetAttributes(file, FileAttributes.Normal); // read-only files would stop the delete
            }

            Directory.Delete(Root, recursive: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
        }
    }
}
