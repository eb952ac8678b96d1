namespace Dedup.Core.Tests.Infrastructure;

/// <summary>Reads /proc/self/mounts (Linux only): which file system a path is on.</summary>
internal static class MountTable
{
    /// <summary>The type of the file system mounted at the deepest mount point holding <paramref name="path"/>, or null.</summary>
    public static string? FileSystemTypeOf(string path)
    {
        var full = Path.GetFullPath(path).TrimEnd('/');
        var best = (Length: -1, Type: (string?)null);
        foreach (var line in File.ReadAllLines("/proc/self/mounts"))
        {
            var parts = line.Split(' ');
            var point = parts[1] == "/" ? string.Empty : parts[1];
            if ((full == point || full.StartsWith(point + "/", StringComparison.Ordinal)) && point.Length > best.Length)
            {
                best = (point.Length, parts[2]);
            }
        }

        return best.Type;
    }

    /// <summary>Whether <paramref name="path"/> is on a file system of type <paramref name="type"/> (e.g. "ext4").</summary>
    public static bool IsOn(string path, string type) => FileSystemTypeOf(path) == type;
}
