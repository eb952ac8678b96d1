namespace Dedup.Core.Tests.Infrastructure;

/// <summary>A real temporary folder for one test (under the temp folder, or another base folder such as a test mount), deleted afterwards.</summary>
public sealed class TempTree : IDisposable
{
    public TempTree(string? baseFolder = null)
    {
        Root = Path.Combine(baseFolder ?? Path.Combine(Path.GetTempPath(), "dedup-tests"), Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Root);
    }

    public string Root { get; }

    public string PathOf(string relative) => Path.Combine(Root, relative);

    /// <summary>Writes a file (creating folders) and returns its full path.</summary>
    public string Write(string relative, byte[] content)
    {
        var full = PathOf(relative);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        File.WriteAllBytes(full, content);
        return full;
    }

    public string Write(string relative, string content) => Write(relative, System.Text.Encoding.UTF8.GetBytes(content));

    /// <summary>Creates a hard link <paramref name="link"/> to <paramref name="existing"/> (both relative).</summary>
    public string HardLink(string existing, string link)
    {
        var full = PathOf(link);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        Run("ln", PathOf(existing), full);
        return full;
    }

    public string Symlink(string target, string link)
    {
        var full = PathOf(link);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        File.CreateSymbolicLink(full, target);
        return full;
    }

    public static byte[] RandomBytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    /// <summary>Runs a tool; an <see cref="InvalidOperationException"/> with its error output if it exits non-zero.</summary>
    public static void Run(string file, params string[] args) => ProcessRunner.RunChecked(file, args);

    public void Dispose()
    {
        try
        {
            // Restore permissions a test may have removed, then delete.
            Run("chmod", "-R", "u+rwx", Root);
            Directory.Delete(Root, recursive: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or InvalidOperationException)
        {
        }
    }
}
