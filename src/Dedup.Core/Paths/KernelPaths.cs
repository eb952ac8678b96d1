namespace Dedup.Core.Paths;

/// <summary>
/// What the kernel means by a path a user gave (a root, a keep rule's folder). <see cref="Path.GetFullPath(string)"/>
/// drops a <c>..</c> together with the name before it; the kernel climbs out of where that name leads, so with
/// <c>l -> real/deep</c> the text <c>l/..</c> means <c>real</c>, not the folder holding <c>l</c> (#34). A root read
/// the lexical way would widen a scan, and a delete, to files the user never named.
/// </summary>
internal static partial class KernelPaths
{
    /// <summary>
    /// The absolute path the kernel would reach through <paramref name="path"/>. The part up to the last <c>..</c> is
    /// resolved as the kernel does, and kept as spelled when it names the same folder; without <c>..</c> the text is
    /// only made absolute and tidied (<c>.</c> and doubled separators), as on Windows, whose paths are lexical.
    /// </summary>
    /// <exception cref="DirectoryNotFoundException">The part up to the last <c>..</c> does not lead to a folder now, so what the path means cannot be told.</exception>
    public static string Resolve(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (OperatingSystem.IsWindows())
        {
            return Path.GetFullPath(path);
        }

        var absolute = Path.IsPathRooted(path) ? path : Path.Combine(Environment.CurrentDirectory, path);
        var end = EndOfLastParentStep(absolute);
        if (end < 0)
        {
            return Path.GetFullPath(absolute);
        }

        var climbing = absolute[..end];
        string? resolved;
        string? problem;
        if (OperatingSystem.IsLinux())
        {
            resolved = ResolveLinux(climbing, out problem);
        }
        else
        {
            resolved = ResolvePortable(climbing, out problem);
        }

        if (resolved is null)
        {
            throw new DirectoryNotFoundException(
                $"Cannot tell what '{PathText.Escape(path)}' means: its '..' climbs out of '{PathText.Escape(climbing)}', which cannot be resolved now ({problem}).");
        }

        // The rest holds no "..": tidying it lexically is what the kernel does too.
        return Path.GetFullPath(resolved + absolute[end..]);
    }

    /// <summary>The index just past the last <c>..</c> component of <paramref name="path"/>, or -1 when it has none.</summary>
    internal static int EndOfLastParentStep(string path)
    {
        var end = path.Length;
        while (end > 0)
        {
            var start = path.LastIndexOf('/', end - 1) + 1;
            if (end - start == 2 && path[start] == '.' && path[start + 1] == '.')
            {
                return end;
            }

            end = start - 1;
        }

        return -1;
    }
}
