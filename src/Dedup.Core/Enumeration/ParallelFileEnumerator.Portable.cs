// Compiled on every platform; untested here (no macOS machine).
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Topology;

namespace Dedup.Core.Enumeration;

// macOS and other non-Linux, non-Windows platforms: BCL enumeration only. No file identities are available, so hard
// links are not folded and folder loops are caught by path depth only; the device is 0. (Windows: .Windows.cs.)
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

            var device = work.RootDevice ?? RootDeviceOf(work.Path);
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
                            AbsolutePath child = isLink ? AbsolutePathSymlinkPoint.Create(work.Path, context.Names.Intern(info.Name), info.LinkTarget!) : work.Path.Child(info.Name, context.Names);
                            Push(new DirectoryWork(child, relative, device, work.Ancestors, work.ViaSymlink || isLink));
                        }
                    }
                    else if (info is FileInfo file && file.Exists && context.IsSizeIncluded(file.Length)
                        && context.IsFileIncluded(Combine(work.RelativePath, info.Name)))
                    {
                        var identity = new FileIdentity(device, (ulong)Interlocked.Increment(ref s_syntheticIds));
                        batch.Add(new ScannedFile(work.Path.Child(info.Name, context.Names), file.Length, identity, 1, file.LastWriteTimeUtc));
                    }
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                context.ReportError(work.Path.ToString(), ex is UnauthorizedAccessException ? ScanErrorKind.AccessDenied : ScanErrorKind.IOError, ex.Message);
            }
        }

        /// <summary>
        /// One volume lookup per root, handed down to every folder below it. So a volume mounted in a
        /// folder inside the root, or reached through a followed link, reports the root's serial: its
        /// reads are then scheduled as the root device's. 0 (unknown) when the volume cannot be queried.
        /// </summary>
        private static ulong RootDeviceOf(AbsolutePath root) =>
            OperatingSystem.IsWindows() && DeviceLookup.TryGet(root.ToString(), out var serial, out _) ? serial : 0;
    }
}
