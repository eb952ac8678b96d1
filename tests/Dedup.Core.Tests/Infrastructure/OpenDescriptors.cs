namespace Dedup.Core.Tests.Infrastructure;

/// <summary>What this process holds open, from /proc/self/fd (Linux only).</summary>
internal static class OpenDescriptors
{
    /// <summary>
    /// Paths below <paramref name="root"/> (and, with <paramref name="includeRoot"/>, the folder itself) that a
    /// descriptor of this process points to; other tests' files do not count.
    /// </summary>
    public static List<string> Under(string root, bool includeRoot)
    {
        var found = new List<string>();
        foreach (var fd in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
        {
            try
            {
                var target = new FileInfo(fd).LinkTarget;
                if (target is not null && ((includeRoot && target == root) || target.StartsWith(root + "/", StringComparison.Ordinal)))
                {
                    found.Add(target);
                }
            }
            catch (IOException)
            {
                // The descriptor was closed while listing.
            }
        }

        return found;
    }
}
