namespace Dedup.Core.Paths;

// Other Unix systems (macOS, BSD): the kernel's walk redone with the BCL, one name at a time. Compiled everywhere,
// exercised only where the Linux code is not used (untested here).
internal static partial class KernelPaths
{
    private const int MaxLinks = 40; // Linux's MAXSYMLINKS; macOS allows 32, so a longer chain fails there first

    /// <summary>Resolves every symbolic link and <c>..</c> of the absolute <paramref name="climbing"/>, as <c>realpath</c> does.</summary>
    private static string? ResolvePortable(string climbing, out string? problem)
    {
        var pending = new Stack<string>();
        Push(pending, climbing);
        var current = "/";
        var links = 0;
        while (pending.Count > 0)
        {
            var name = pending.Pop();
            if (name.Length == 0 || name == ".")
            {
                continue;
            }

            if (name == "..")
            {
                current = Path.GetDirectoryName(current) ?? current;
                continue;
            }

            var next = Path.Join(current, name);
            var info = new DirectoryInfo(next);
            if (info.LinkTarget is { } target)
            {
                if (++links > MaxLinks)
                {
                    problem = "too many levels of symbolic links";
                    return null;
                }

                current = Path.IsPathRooted(target) ? "/" : current;
                Push(pending, target);
                continue;
            }

            if (!info.Exists)
            {
                problem = $"'{PathText.Escape(next)}' is not a folder";
                return null;
            }

            current = next;
        }

        problem = null;
        return current;
    }

    private static void Push(Stack<string> pending, string path)
    {
        var names = path.Split('/');
        for (var i = names.Length - 1; i >= 0; i--)
        {
            pending.Push(names[i]);
        }
    }
}
