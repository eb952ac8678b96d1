using System.Runtime.Versioning;
using System.Text;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking.Journal;

/// <summary>
/// Linux: what a <c>begun</c> line records beyond the status: inode flags (FS_IOC_GETFLAGS) and every extended
/// attribute, read from a file the action already has open (a link's through its folder's descriptor, not following it).
/// Read only when a journal is kept. A failure to read them stops the action: a step undo could not reverse exactly is not made.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class JournalMetadata
{
    private delegate nint Lister(byte* list, nuint size);

    private delegate nint Getter(byte* name, byte* value, nuint size);

    /// <summary>The inode flags of the open file; 0 on a file system without them.</summary>
    public static int Flags(int fd)
    {
        int flags;
        if (Libc.Ioctl(fd, Libc.FS_IOC_GETFLAGS, (nint)(&flags)) == 0)
        {
            return flags;
        }

        return Libc.LastErrno is Libc.ENOTTY or Libc.EOPNOTSUPP or Libc.EINVAL or Libc.ENOSYS
            ? 0
            : throw ActionStoppedException.Fail($"cannot read the inode flags for the journal: {Libc.Message(Libc.LastErrno)}; nothing done");
    }

    /// <summary>Every extended attribute of the open file, or <see langword="null"/> when it has none.</summary>
    public static IReadOnlyList<KeyValuePair<string, byte[]>>? Xattrs(int fd) =>
        Read((list, size) => Libc.FListXattr(fd, list, size), (name, value, size) => Libc.FGetXattr(fd, name, value, size));

    /// <summary>Every extended attribute of the name itself in the open folder (a link is not followed), or <see langword="null"/>.</summary>
    public static IReadOnlyList<KeyValuePair<string, byte[]>>? LinkXattrs(int folderFd, string name)
    {
        // No *at form of llistxattr: the folder's descriptor names it, and the l-calls do not follow the last name.
        var path = KernelNameCodec.ToNullTerminated($"/proc/self/fd/{folderFd}/{name}")
            ?? throw ActionStoppedException.Fail("the name cannot be passed to the kernel; nothing done");
        fixed (byte* p = path)
        {
            var at = p;
            return Read((list, size) => Libc.LListXattr(at, list, size), (n, value, size) => Libc.LGetXattr(at, n, value, size));
        }
    }

    private static List<KeyValuePair<string, byte[]>>? Read(Lister list, Getter get)
    {
        var length = list(null, 0);
        if (length <= 0)
        {
            return length == 0 || Libc.LastErrno is Libc.EOPNOTSUPP or Libc.ENOSYS ? null : throw Unreadable("listing them");
        }

        var names = new byte[length];
        fixed (byte* n = names)
        {
            length = list(n, (nuint)names.Length);
            if (length < 0)
            {
                throw Unreadable("listing them"); // ERANGE: one was added meanwhile, which moves the change time anyway
            }

            var result = new List<KeyValuePair<string, byte[]>>();
            for (var start = 0; start < length;)
            {
                var nameLength = names.AsSpan(start, (int)length - start).IndexOf((byte)0);
                var name = n + start;
                var text = Encoding.UTF8.GetString(name, nameLength);
                start += nameLength + 1;
                var size = get(name, null, 0);
                if (size < 0 && Libc.LastErrno == Libc.ENODATA)
                {
                    continue; // removed meanwhile: its change time moved, which the last check catches
                }

                var value = new byte[Math.Max(size, 0)];
                fixed (byte* v = value)
                {
                    size = size < 0 ? size : get(name, v, (nuint)value.Length);
                }

                if (size < 0)
                {
                    throw Unreadable(text);
                }

                result.Add(new(text, size == value.Length ? value : value.AsSpan(0, (int)size).ToArray()));
            }

            return result.Count == 0 ? null : result;
        }
    }

    private static ActionStoppedException Unreadable(string what) =>
        ActionStoppedException.Fail($"cannot read the extended attributes for the journal ({what}): {Libc.Message(Libc.LastErrno)}; nothing done");
}
