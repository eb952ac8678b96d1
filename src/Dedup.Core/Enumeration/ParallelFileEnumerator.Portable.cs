// Compiled on every platform; untested here (no macOS machine).
using System.Runtime.InteropServices;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Topology;

namespace Dedup.Core.Enumeration;

// macOS and other non-Linux, non-Windows platforms: BCL enumeration. On macOS identities come from lstat/stat
// (MacFileIds): hard links are folded, folders visited once and links back into an enclosing folder caught; the depth
// limit stays as a backstop. Elsewhere there are no identities: a counter per file, device 0. (Windows: .Windows.cs.)
internal sealed partial class ParallelFileEnumerator
{
    private sealed partial class Walk
    {
        private const int MaxPortableDepth = 256;
        private static long s_syntheticIds;

        private void ListPortable(DirectoryWork work, EntrySink sink)
        {
            if (work.Path.Depth > MaxPortableDepth)
            {
                context.ReportError(work.Path.ToString(), ScanErrorKind.SymbolicLinkLoop, "Folder nesting too deep; possible link loop");
                sink.MarkIncomplete(work);
                return;
            }

            var device = work.RootDevice ?? RootDeviceOf(work.Path);
            var ancestors = work.Ancestors;
            if (OperatingSystem.IsMacOS())
            {
                if (!MacFileIds.TryGet(work.Path.ToString(), followLink: true, out var folder, out _, out var errno))
                {
                    context.ReportError(work.Path.ToString(), ScanErrorKinds.FromErrno(errno), Marshal.GetPInvokeErrorMessage(errno));
                    sink.MarkIncomplete(work);
                    return;
                }

                device = work.RootDevice ?? folder.Device;
                if ((context.StayOnOneFileSystem && folder.Device != device) || !TryVisit(work, folder))
                {
                    sink.MarkIncomplete(work);
                    return;
                }

                ancestors = new FolderChain(folder, work.Ancestors);
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
                        sink.AddLink(work, info.Name, info.LinkTarget!); // folder mode: compared as a link
                        continue;
                    }

                    if (info is DirectoryInfo)
                    {
                        var relative = Combine(work.RelativePath, info.Name);
                        if (!context.IsDirectoryExcluded(relative))
                        {
                            AbsolutePath child = isLink ? AbsolutePathSymlinkPoint.Create(work.Path, context.Names.Intern(info.Name), info.LinkTarget!) : work.Path.Child(info.Name, context.Names);
                            PushSubfolder(work, new DirectoryWork(child, relative, device, ancestors, work.ViaSymlink || isLink));
                        }
                    }
                    else if (info is FileInfo file && file.Exists && context.IsSizeIncluded(file.Length)
                        && context.IsFileIncluded(Combine(work.RelativePath, info.Name)))
                    {
                        var path = work.Path.Child(info.Name, context.Names);
                        var identity = new FileIdentity(device, (ulong)Interlocked.Increment(ref s_syntheticIds));
                        var links = 1;
                        if (OperatingSystem.IsMacOS() && !MacFileIds.TryGet(path.ToString(), followLink: isLink, out identity, out links, out var errno))
                        {
                            context.ReportError(path.ToString(), ScanErrorKinds.FromErrno(errno), Marshal.GetPInvokeErrorMessage(errno));
                            sink.MarkIncomplete(work);
                            continue;
                        }

                        sink.Add(work, new ScannedFile(path, file.Length, identity, links, file.LastWriteTimeUtc));
                    }
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                context.ReportError(work.Path.ToString(), ex is UnauthorizedAccessException ? ScanErrorKind.AccessDenied : ScanErrorKind.IOError, ex.Message);
                sink.MarkIncomplete(work);
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
