// Compiled on every platform; run under Wine 8 by .ci/wine-cli.sh (not on Windows proper).
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Enumeration;

// Windows: BCL listing (names, sizes, times, attributes from NtQueryDirectoryFile) plus real identities
// (WindowsFileIds): folders for loops and overlapping roots, files for hard-link folding. The IDs are read eagerly,
// one attribute-only open per file that passed the size and glob filters: reading them only for files in same-size
// sets would need the scanner to ask the enumerator, and an open without data access costs no I/O beyond the MFT
// record the listing already brought into the cache.
internal sealed partial class ParallelFileEnumerator
{
    private sealed partial class Walk
    {
        [SupportedOSPlatform("windows")]
        private void ListWindows(DirectoryWork work, EntrySink sink)
        {
            var path = work.Path.ToString();

            // What the path leads to (through a followed link too): each folder is listed once, and a link back into
            // an enclosing folder is caught by identity rather than by depth.
            if (!WindowsFileIds.TryGet(path, followLink: true, out var folder, out _, out var error))
            {
                context.ReportError(path, WindowsFileIds.KindOf(error), Marshal.GetPInvokeErrorMessage(error));
                sink.MarkIncomplete(work);
                return;
            }

            var rootDevice = work.RootDevice ?? folder.Device;
            if ((context.StayOnOneFileSystem && folder.Device != rootDevice) || !TryVisit(work, folder))
            {
                sink.MarkIncomplete(work);
                return;
            }

            var ancestors = new FolderChain(folder, work.Ancestors);
            try
            {
                foreach (var info in new DirectoryInfo(path).EnumerateFileSystemInfos())
                {
                    if (!context.IncludeHidden && info.Name.StartsWith('.'))
                    {
                        continue;
                    }

                    ListEntryWindows(work, info, rootDevice, ancestors, sink);
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                context.ReportError(path, ex is UnauthorizedAccessException ? ScanErrorKind.AccessDenied : ScanErrorKind.IOError, ex.Message);
                sink.MarkIncomplete(work);
            }
        }

        [SupportedOSPlatform("windows")]
        private void ListEntryWindows(DirectoryWork work, FileSystemInfo info, ulong rootDevice, FolderChain ancestors, EntrySink sink)
        {
            var attributes = info.Attributes; // from the listing: no call
            if (WindowsFileIds.IsPlaceholder(attributes))
            {
                // Never opened, never followed: a cloud placeholder's data would be downloaded, an offline file's recalled.
                if (info is FileInfo || context.FollowSymbolicLinks)
                {
                    context.ReportError(info.FullName, ScanErrorKind.IOError, $"Cloud placeholder or offline file (attributes 0x{(uint)attributes:X}); skipped, not read: reading it would download or recall its data");
                }

                sink.MarkIncomplete(work);
                return;
            }

            string? linkTarget = null;
            if ((attributes & FileAttributes.ReparsePoint) != 0)
            {
                // Symbolic links and junctions are followed only when asked; other reparse points (no link target:
                // hydrated cloud files, deduplicated or WIM-backed files, app-execution aliases) never.
                linkTarget = context.FollowSymbolicLinks ? info.LinkTarget : null;
                if (linkTarget is null)
                {
                    // Folder mode keeps a symbolic link as a link; other reparse points make the folder incomplete.
                    if (sink.TracksFolders && !context.FollowSymbolicLinks && info.LinkTarget is { } target)
                    {
                        sink.AddLink(work, info.Name, target);
                    }
                    else
                    {
                        sink.MarkIncomplete(work);
                    }

                    return;
                }
            }

            var relative = Combine(work.RelativePath, info.Name);
            if (info is DirectoryInfo)
            {
                if (!context.IsDirectoryExcluded(relative))
                {
                    AbsolutePath child = linkTarget is null ? work.Path.Child(info.Name, context.Names) : AbsolutePathSymlinkPoint.Create(work.Path, context.Names.Intern(info.Name), linkTarget);
                    PushSubfolder(work, new DirectoryWork(child, relative, rootDevice, ancestors, work.ViaSymlink || linkTarget is not null));
                }

                return;
            }

            if (info is not FileInfo file || !context.IsFileIncluded(relative))
            {
                return;
            }

            // A followed link's size, time and identity are its target's.
            if (linkTarget is not null)
            {
                file = file.ResolveLinkTarget(returnFinalTarget: true) as FileInfo ?? file;
                if (!file.Exists || WindowsFileIds.IsPlaceholder(file.Attributes) || (file.Attributes & FileAttributes.ReparsePoint) != 0)
                {
                    return;
                }
            }

            if (!context.IsSizeIncluded(file.Length))
            {
                return;
            }

            var full = work.Path.Child(info.Name, context.Names);
            if (!WindowsFileIds.TryGet(full.ToString(), followLink: linkTarget is not null, out var identity, out var links, out var error))
            {
                context.ReportError(full.ToString(), WindowsFileIds.KindOf(error), Marshal.GetPInvokeErrorMessage(error));
                sink.MarkIncomplete(work);
                return;
            }

            sink.Add(work, new ScannedFile(full, file.Length, identity, links, file.LastWriteTimeUtc));
        }
    }
}
