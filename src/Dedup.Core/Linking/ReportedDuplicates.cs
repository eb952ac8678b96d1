using Dedup.Core.Interop;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// Rebuilds a <see cref="DuplicateGroup"/> from paths listed in an earlier report (such as <c>dedup find --format json</c>),
/// from the files as they are now. Content is not compared here: every linker re-verifies it before acting.
/// </summary>
public static class ReportedDuplicates
{
    /// <summary>
    /// Looks up each path now (without following symbolic links) and groups the regular files of
    /// <paramref name="size"/> bytes by identity; names of one file become its <see cref="DuplicateFile.OtherLinks"/>.
    /// </summary>
    /// <param name="size">The size the report gives for the group.</param>
    /// <param name="paths">All names listed in the group (primary paths and hard links).</param>
    /// <param name="problems">Paths left out and why (missing, another size, not a regular file).</param>
    /// <returns>The group, or <see langword="null"/> when fewer than two distinct files remain.</returns>
    /// <exception cref="NotSupportedException">Not running on Linux.</exception>
    public static DuplicateGroup? FromPaths(long size, IEnumerable<string> paths, out IReadOnlyList<string> problems)
    {
        ArgumentNullException.ThrowIfNull(paths);
        if (!OperatingSystem.IsLinux())
        {
            throw new NotSupportedException("Reading reported duplicates is implemented for Linux only.");
        }

        var issues = new List<string>();
        var byIdentity = new Dictionary<FileIdentity, List<(AbsolutePath Path, StatxBuffer Status)>>();
        foreach (var text in paths.Distinct(StringComparer.Ordinal))
        {
            var path = AbsolutePath.Parse(text);
            var errno = LinkNative.LStat(path.ToString(), out var status);
            if (errno != 0)
            {
                issues.Add($"{path}: {LinkNative.Message(errno)}");
            }
            else if (!status.IsRegularFile)
            {
                issues.Add($"{path}: not a regular file");
            }
            else if ((long)status.Size != size)
            {
                issues.Add($"{path}: size is now {status.Size}, the report says {size}");
            }
            else
            {
                var identity = new FileIdentity(status.Device, status.Ino);
                if (!byIdentity.TryGetValue(identity, out var names))
                {
                    byIdentity[identity] = names = [];
                }

                names.Add((path, status));
            }
        }

        problems = issues;
        if (byIdentity.Count < 2)
        {
            return null;
        }

        var files = byIdentity
            .Select(pair =>
            {
                var names = pair.Value.OrderBy(n => n.Path.ToString(), StringComparer.Ordinal).ToArray();
                var first = names[0].Status;
                return new DuplicateFile(names[0].Path, names.Skip(1).Select(n => n.Path).ToArray(), pair.Key, size, (int)first.NLink, first.LastWriteTimeUtc);
            })
            .OrderBy(f => f.Path.ToString(), StringComparer.Ordinal)
            .ToArray();
        return new DuplicateGroup(size, files, verifiedByBytes: false);
    }
}
