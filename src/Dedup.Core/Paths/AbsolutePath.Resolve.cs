namespace Dedup.Core.Paths;

public partial class AbsolutePath
{
    /// <summary>
    /// Parses a path as the kernel resolves it, for a folder a user names (a root, a keep rule's folder): a <c>..</c>
    /// after a symbolic link climbs out of the link's target, so with <c>l -> real/deep</c> the path <c>l/..</c> is
    /// <c>real</c>, where <see cref="Parse"/> would give the folder holding <c>l</c>. A path without <c>..</c>, or
    /// whose <c>..</c> leads where the lexical reading does, keeps its spelling. On Windows, whose paths are lexical,
    /// this is <see cref="Parse"/>.
    /// </summary>
    /// <param name="path">A path; relative paths are resolved against the current directory.</param>
    /// <returns>The path's last node.</returns>
    /// <exception cref="DirectoryNotFoundException">
    /// The part of <paramref name="path"/> up to its last <c>..</c> does not lead to a folder now, so what it means cannot be told.
    /// </exception>
    public static AbsolutePath Resolve(string path) => Parse(KernelPaths.Resolve(path));
}
