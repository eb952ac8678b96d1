using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Enumeration;

// Non-Linux platforms: BCL enumeration only. No file identities are available, so hard links are not
// folded and folder loops are caught by path depth only. Compiled everywhere, untested here.
internal sealed partial class ParallelFileEnumerator
{
    private sealed partial class Walk
    {
        private const int MaxPortableDepth = 256;
        private static long s_syntheticIds;

        private void ListPortable(DirectoryWork work, List<ScannedFile> batch)
        {
            if (work.Path.Depth > MaxPortableDepth)
            {
                context.ReportError(work.Path.ToString(), ScanErrorKind.SymbolicLinkLoop, "Folder nesting too deep; possible link loop");
                return;
            }

            try
            {
                foreach (var info in new DirectoryInfo(work.Path.ToString()).EnumerateFileSystemInfos())
                {
                    if (!context.IncludeHidden && info.Name.StartsWith('.'))
                    {
                        continue;
                    }

                    var isLink = info.LinkTarget is not null;
                    if (isLink && !context.FollowSymbolicLinks)
                    {
                        continue;
                    }

                    if (info is DirectoryInfo)
                    {
                        var relative = Combine(work.RelativePath, info.Name);
                        if (!context.IsDirectoryExcluded(relative))
                        {
                            AbsolutePath child = isLink ? AbsolutePathSymlinkPoint.Create(work.Path, info.Name, info.LinkTarget!) : work.Path.Child(info.Name);
                            Push(new DirectoryWork(child, relative, 0, work.Ancestors, work.ViaSymlink || isLink));
                        }
                    }
                    else if (info is FileInfo file && file.Exists && context.IsSizeIncluded(file.Length)
                        && context.IsFileIncluded(Combine(work.RelativePath, info.Name)))
                    {
                        var identity = new FileIdentity(0, (ulong)Interlocked.Increment(ref s_syntheticIds));
                        batch.Add(new ScannedFile(work.Path.Child(info.Name), file.Length, identity, 1, file.LastWriteTimeUtc));
                    }
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                context.ReportError(work.Path.ToString(), ex is UnauthorizedAccessException ? ScanErrorKind.AccessDenied : ScanErrorKind.IOError, ex.Message);
            }
        }
    }
}
