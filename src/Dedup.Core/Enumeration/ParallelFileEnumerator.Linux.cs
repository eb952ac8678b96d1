using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Enumeration;

internal sealed partial class ParallelFileEnumerator
{
    private sealed partial class Walk
    {
        private const int DentsBufferSize = 64 * 1024;

        [ThreadStatic]
        private static byte[]? t_dents;

        /// <summary>
        /// Lists one folder with getdents64 and one statx per regular file, relative to the folder's
        /// descriptor (no full-path lookups). FIFOs, sockets and devices are recognised from d_type and
        /// never opened; symbolic links are skipped unless followed.
        /// </summary>
        [SupportedOSPlatform("linux")]
        private unsafe void ListLinux(DirectoryWork work, EntrySink sink)
        {
            var fd = OpenFolder(work, out var errno);
            if (fd == InvalidName)
            {
                context.ReportError(work.Path.ToString(), ScanErrorKind.InvalidName, "Path too long, or not a name the system can be given unchanged");
                sink.MarkIncomplete(work);
                return;
            }

            if (fd < 0)
            {
                ReportErrno(work.Path, errno);
                sink.MarkIncomplete(work);
                return;
            }

            work.Listing = SharedFolder.TryHold(fd, _heldFolders, _maxHeldFolders);
            try
            {
                StatxBuffer dirStat;
                byte empty = 0;
                if (Libc.Statx(fd, &empty, Libc.AT_EMPTY_PATH, Libc.STATX_BASIC_STATS, &dirStat) != 0)
                {
                    ReportErrno(work.Path, Marshal.GetLastPInvokeError());
                    sink.MarkIncomplete(work);
                    return;
                }

                var identity = new FileIdentity(dirStat.Device, dirStat.Ino);
                var rootDevice = work.RootDevice ?? dirStat.Device;
                if (work.OnlyName is { } only)
                {
                    ListRootFile(work, fd, only, rootDevice, new FolderChain(identity, null), sink);
                    return;
                }

                if ((context.StayOnOneFileSystem && dirStat.Device != rootDevice) || !TryVisit(work, identity))
                {
                    sink.MarkIncomplete(work); // not listed here: its contents are unknown to folder mode
                    return;
                }

                var ancestors = new FolderChain(identity, work.Ancestors);
                var buffer = t_dents ??= new byte[DentsBufferSize];
                fixed (byte* dents = buffer)
                {
                    while (true)
                    {
                        var count = Libc.GetDents64(fd, dents, (nuint)buffer.Length);
                        if (count == 0)
                        {
                            break;
                        }

                        if (count < 0)
                        {
                            ReportErrno(work.Path, Marshal.GetLastPInvokeError());
                            sink.MarkIncomplete(work);
                            break;
                        }

                        for (var offset = 0; offset < count;)
                        {
                            var entry = dents + offset;
                            var recordLength = *(ushort*)(entry + 16);
                            var type = entry[18];
                            var name = MemoryMarshal.CreateReadOnlySpanFromNullTerminated(entry + 19);
                            offset += recordLength;
                            ListEntry(work, fd, entry + 19, name, type, rootDevice, ancestors, sink);
                        }

                        // No answer short of a full buffer is taken for the end, even on file systems that fill it until
                        // the folder ends: the kernel also stops early when a signal is pending (filldir64), and the
                        // runtime signals threads to suspend them for a collection. Skipping the empty call lost files
                        // (3 of 1,001,825 in one run of six, session 15).
                    }
                }
            }
            finally
            {
                if (work.Listing is { } listing)
                {
                    work.Listing = null;
                    listing.Release(); // closed once the sub-folders it lent itself to are open
                }
                else
                {
                    _ = Libc.Close(fd);
                }
            }
        }

        private const int InvalidName = int.MinValue; // RootedTree.InvalidName

        /// <summary>Links followed only where listed as links, and only with <c>--follow-symlinks</c>; any other link refused.</summary>
        private readonly TreeWalkPolicy _policy = TreeWalkPolicy.ForScan(context.FollowSymbolicLinks);

        /// <summary>
        /// Opens a folder to list: by its name relative to the descriptor of the folder that queued it (the queued
        /// reference is given back here), or by its whole path; <see cref="InvalidName"/> if the path cannot be written.
        /// A folder whose whole path would not fit <c>PATH_MAX</c> is refused either way: its files could be listed
        /// relative to it, but not reported or acted on by a path.
        /// </summary>
        [SupportedOSPlatform("linux")]
        private int OpenFolder(DirectoryWork work, out int errno)
        {
            // Listed as a folder, not a link being followed: a folder swapped for a link since must not be listed (its
            // files would be reported under a path inside the roots). Roots may be links.
            var followLast = work.Ancestors is null || _policy.Follows(work.Path);
            errno = 0;
            var parent = work.OpenedFrom;
            work.OpenedFrom = null; // released below, whatever happens
            try
            {
                // Characters: at most 3 bytes each in UTF-8 (4 for a pair of 2); longer ones are measured by writing them.
                if (parent is not null && work.Path.Length * 3 < RootedTree.PathMax)
                {
                    // A link being followed is followed here as it would be in a whole path (the chain of enclosing
                    // folders still catches loops).
                    var fd = RootedTree.OpenChild(parent.Fd, work.Path, _policy, RootedTree.Listed, out errno); // before the release, whose close would overwrite errno
                    if (fd != RootedTree.InvalidName)
                    {
                        return fd;
                    }
                }
            }
            finally
            {
                parent?.Release();
            }

            return RootedTree.OpenByPath(work.Path, RootedTree.Listed, followLast, out errno);
        }

        /// <summary>
        /// The work for a root: the root folder, or (Linux) the folder of a root that names something else, with that
        /// one name; the name is then told apart as an entry is (a FIFO or device is never opened, a link followed only
        /// when links are). Roots are followed through a link at their own name to tell which, as folder roots are.
        /// </summary>
        [SupportedOSPlatform("linux")]
        private static DirectoryWork RootWork(AbsolutePath root)
        {
            if (root.Parent is { } folder
                && Libc.Statx(Libc.AT_FDCWD, root.ToString(), 0, Libc.STATX_BASIC_STATS, out var status) == 0
                && !status.IsDirectory)
            {
                return new DirectoryWork(folder, string.Empty, null, null, false) { OnlyName = root.Name };
            }

            return new DirectoryWork(root, string.Empty, null, null, false);
        }

        /// <summary>
        /// A root that is a file: its name looked up in its folder without following a link, its type taken from that
        /// answer as a listing takes it from <c>d_type</c>, then treated as any entry (a hidden name too: it was named).
        /// </summary>
        [SupportedOSPlatform("linux")]
        private unsafe void ListRootFile(DirectoryWork work, int dirFd, string name, ulong rootDevice, FolderChain ancestors, EntrySink sink)
        {
            if (!KernelNames.TryGetBytes(name, out var bytes))
            {
                context.ReportError(work.Path.Child(name).ToString(), ScanErrorKind.InvalidName, "Not a name the system can be given unchanged");
                return;
            }

            var terminated = new byte[bytes.Length + 1];
            bytes.CopyTo(terminated, 0);
            fixed (byte* namePtr = terminated)
            {
                StatxBuffer stx;
                if (Libc.Statx(dirFd, namePtr, Libc.AT_SYMLINK_NOFOLLOW, Libc.STATX_BASIC_STATS, &stx) != 0)
                {
                    ReportErrno(work.Path.Child(name), Marshal.GetLastPInvokeError());
                    return;
                }

                var type = stx.Type switch
                {
                    Libc.S_IFREG => Libc.DT_REG,
                    Libc.S_IFLNK => Libc.DT_LNK,
                    _ => (byte)1, // DT_FIFO: anything else is never opened (a folder swapped in since is not listed either)
                };
                ListEntry(work, dirFd, namePtr, bytes, type, rootDevice, ancestors, sink, named: true);
            }
        }

        [SupportedOSPlatform("linux")]
        private unsafe void ListEntry(DirectoryWork work, int dirFd, byte* namePtr, ReadOnlySpan<byte> name, byte type, ulong rootDevice, FolderChain ancestors, EntrySink sink, bool named = false)
        {
            if (name.Length == 0 || (name[0] == (byte)'.' && (name.Length == 1 || (name.Length == 2 && name[1] == (byte)'.'))))
            {
                return;
            }

            if (!context.IncludeHidden && name[0] == (byte)'.' && !named)
            {
                return;
            }

            if (type is not (Libc.DT_DIR or Libc.DT_REG or Libc.DT_LNK or Libc.DT_UNKNOWN))
            {
                sink.MarkIncomplete(work); // folder mode compares no FIFO, socket or device
                return; // FIFO, socket or device: never opened.
            }

            if (type == Libc.DT_LNK && !context.FollowSymbolicLinks)
            {
                if (sink.TracksFolders)
                {
                    // Folder mode compares a link as a link: its name and target, never what it points to.
                    var target = Libc.ReadLinkTarget(dirFd, namePtr);
                    if (target is null)
                    {
                        sink.MarkIncomplete(work);
                    }
                    else
                    {
                        sink.AddLink(work, KernelNames.GetString(name), target);
                    }
                }

                return;
            }

            if (type == Libc.DT_DIR)
            {
                PushChild(work, name, rootDevice, ancestors, null);
                return;
            }

            // Regular files are not followed (NOFOLLOW); links are, when asked.
            var flags = Libc.AT_STATX_DONT_SYNC | (type == Libc.DT_LNK ? 0 : Libc.AT_SYMLINK_NOFOLLOW);
            StatxBuffer stx;
            if (Libc.Statx(dirFd, namePtr, flags, Libc.STATX_BASIC_STATS, &stx) != 0)
            {
                var errno = Marshal.GetLastPInvokeError();
                if (type == Libc.DT_LNK && errno == Libc.ENOENT)
                {
                    return; // A dangling link names no file.
                }

                ReportErrno(work.Path.Child(KernelNames.GetString(name)), errno);
                sink.MarkIncomplete(work);
                return;
            }

            if (stx.IsDirectory)
            {
                if (type == Libc.DT_LNK)
                {
                    PushChild(work, name, rootDevice, ancestors, Libc.ReadLinkTarget(dirFd, namePtr) ?? string.Empty);
                }
                else if (type == Libc.DT_UNKNOWN)
                {
                    PushChild(work, name, rootDevice, ancestors, null);
                }

                return;
            }

            if (!stx.IsRegularFile)
            {
                sink.MarkIncomplete(work);
                return;
            }

            if (!context.IsSizeIncluded((long)stx.Size))
            {
                return;
            }

            // The name is decoded only for globs; the table keeps the kernel's bytes as they are.
            if (context.HasFilePatterns && !IsIncluded(work.RelativePath, KernelNames.GetString(name).AsSpan()))
            {
                return;
            }

            var row = new FileRow
            {
                Identity = new FileIdentity(stx.Device, stx.Ino),
                Length = (long)stx.Size,
                LastWriteTimeNs = stx.LastWriteTimeNs,
                ChangeTimeNs = stx.ChangeTimeNs,
                LinkCount = (int)stx.NLink,
                OwnerId = stx.Uid,
            };

            // A link being followed is not read here: O_NOFOLLOW would refuse it, and its row stays without a key.
            if (stx.Size != 0 && stx.Size <= (ulong)sink.KeyedLength && type != Libc.DT_LNK)
            {
                row.ContentKey = ContentKeys.Read(dirFd, namePtr, &stx);
            }

            sink.Add(work, name, row);
        }

        private bool IsIncluded(string relativeFolder, ReadOnlySpan<char> name)
        {
            if (relativeFolder.Length == 0)
            {
                return context.IsFileIncluded(name);
            }

            Span<char> relative = stackalloc char[relativeFolder.Length + 1 + name.Length];
            relativeFolder.AsSpan().CopyTo(relative);
            relative[relativeFolder.Length] = '/';
            name.CopyTo(relative[(relativeFolder.Length + 1)..]);
            return context.IsFileIncluded(relative);
        }

        /// <summary>A folder named by the kernel's bytes: decoded (a byte that is not valid UTF-8 kept as U+DC80+byte, see <see cref="KernelNames"/>) and pushed.</summary>
        private void PushChild(DirectoryWork work, ReadOnlySpan<byte> name, ulong rootDevice, FolderChain ancestors, string? linkTarget)
        {
            if (Utf8Text.IsValid(name))
            {
                Span<char> decoded = stackalloc char[name.Length];
                PushChild(work, decoded[..Encoding.UTF8.GetChars(name, decoded)], rootDevice, ancestors, linkTarget);
            }
            else
            {
                PushChild(work, KernelNames.GetString(name).AsSpan(), rootDevice, ancestors, linkTarget);
            }
        }

        private void PushChild(DirectoryWork work, ReadOnlySpan<char> name, ulong rootDevice, FolderChain ancestors, string? linkTarget)
        {
            var relative = Combine(work.RelativePath, name);
            if (context.IsDirectoryExcluded(relative))
            {
                return;
            }

            AbsolutePath child = linkTarget is null
                ? work.Path.Child(name, context.Names)
                : AbsolutePathSymlinkPoint.Create(work.Path, context.Names.Intern(name), linkTarget);
            PushSubfolder(work, new DirectoryWork(child, relative, rootDevice, ancestors, work.ViaSymlink || linkTarget is not null) { OpenedFrom = work.Listing?.Lend() });
        }

        [SupportedOSPlatform("linux")]
        private void ReportErrno(AbsolutePath path, int errno)
        {
            context.ReportError(path.ToString(), ScanErrorKinds.FromErrno(errno), Marshal.GetPInvokeErrorMessage(errno));
        }
    }
}
