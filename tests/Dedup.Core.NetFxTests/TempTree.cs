using System.Runtime.InteropServices;

namespace Dedup.Core.NetFxTests;

/// <summary>A real temporary folder, removed when disposed; hard and symbolic links are made through libc.</summary>
internal sealed class TempTree : IDisposable
{
    public TempTree()
    {
        Root = Path.Combine(Path.GetTempPath(), "dedup-netfx-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Root);
    }

    public string Root { get; }

    public string File(string relative, string content)
    {
        var path = Path.Combine(Root, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        System.IO.File.WriteAllText(path, content);
        return path;
    }

    public string File(string relative, byte[] content)
    {
        var path = Path.Combine(Root, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        System.IO.File.WriteAllBytes(path, content);
        return path;
    }

    public string HardLink(string existing, string relative)
    {
        var path = Path.Combine(Root, relative);
        Check(Native.link(existing, path), "link");
        return path;
    }

    public string SymbolicLink(string target, string relative)
    {
        var path = Path.Combine(Root, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        Check(Native.symlink(target, path), "symlink");
        return path;
    }

    /// <summary>The (device, inode) of a path, as coreutils <c>stat</c> prints them.</summary>
    public static (ulong Device, ulong Inode, int Links) Identity(string path) => Native.Stat(path);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (IOException)
        {
            // A test that failed may leave a loop behind; the temporary folder is cleaned by the system.
        }
    }

    private static void Check(int result, string call)
    {
        if (result != 0)
        {
            throw new IOException($"{call} failed: errno {Marshal.GetLastWin32Error()}");
        }
    }

    private static class Native
    {
        [DllImport("libc", SetLastError = true)]
        public static extern int link(string existing, string path);

        [DllImport("libc", SetLastError = true)]
        public static extern int symlink(string target, string path);

        /// <summary>Device, inode and link count, read with the coreutils <c>stat</c> command (no struct layout to get wrong).</summary>
        public static (ulong, ulong, int) Stat(string path)
        {
            var start = new System.Diagnostics.ProcessStartInfo("stat", $"-c \"%d %i %h\" \"{path}\"")
            {
                RedirectStandardOutput = true,
                UseShellExecute = false,
            };
            using var process = System.Diagnostics.Process.Start(start)!;
            var parts = process.StandardOutput.ReadToEnd().Trim().Split(' ');
            process.WaitForExit();
            return (ulong.Parse(parts[0], System.Globalization.CultureInfo.InvariantCulture), ulong.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture), int.Parse(parts[2], System.Globalization.CultureInfo.InvariantCulture));
        }
    }
}
