using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Pooling;
using Dedup.Core.Reporting;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

/// <summary>
/// The one way a scan reads files; one instance per scan, shared by its threads. It opens candidate files (relative
/// to cached folder descriptors, asking for <c>O_NOATIME</c> where the kernel allows it), checks each is still the
/// file the scan listed (identity, size, modification time), gives read hints, reads content positionally (whole
/// files, or the pieces an <see cref="IContentMap"/> names), counts every byte read, and makes the last unchanged-check
/// before a group is reported. Failures are reported as <see cref="ScanError"/>s, never thrown. Platform code lives
/// in the <c>.Linux.cs</c> and <c>.Portable.cs</c> parts; this file holds the only dispatch between them.
/// </summary>
internal sealed partial class FileReader : IDisposable
{
    /// <summary>Refusals of <c>O_NOATIME</c> after which a scan that was granted it less often stops asking.</summary>
    public const int NoAtimeRefusalLimit = 16;

    private readonly BufferPool _buffers;
    private readonly ScanErrorSink _errors;
    private readonly IdentityCheck _identities;
    private readonly IReadObserver? _observer;
    private readonly uint _effectiveUid;
    private readonly FolderHandles _folders;
    private readonly bool _refuseLinks;
    private long _bytesRead;
    private int _noAtimeRefusals;
    private int _noAtimeOpens;

    /// <param name="buffers">Where scratch buffers for gathered payload reads come from.</param>
    /// <param name="errors">Where failures are reported.</param>
    /// <param name="trustedIdentities">Whether listed identities come from the library's own enumerator (see <see cref="IdentityCheck"/>).</param>
    /// <param name="observer">Sees the bytes of every whole-file read except probes.</param>
    /// <param name="threads">How many threads read at once (the folder descriptor cache leaves room for their files).</param>
    /// <param name="roots">The scan's roots (see <see cref="FolderHandles"/>).</param>
    /// <param name="refuseLinks">Whether a symbolic link on a file's path is one swapped in since the listing, never to
    /// be opened through: the library's own enumerator, not following links.</param>
    public FileReader(BufferPool buffers, ScanErrorSink errors, bool trustedIdentities, IReadObserver? observer = null, int threads = 1, IEnumerable<Paths.AbsolutePath>? roots = null, bool refuseLinks = false)
    {
        _folders = new FolderHandles(threads, roots, refuseLinks);
        _refuseLinks = refuseLinks;
        _buffers = buffers;
        _errors = errors;
        _identities = new IdentityCheck(trustedIdentities);
        _observer = observer;
        _effectiveUid = OperatingSystem.IsLinux() ? Libc.GetEuid() : ScannedFile.UnknownOwner;
    }

    /// <summary>Gives the folders with the most candidates at or below them their descriptors first (see <see cref="FolderHandles.OpenBusiest"/>).</summary>
    /// <param name="table">The table once past the size barrier: only the candidates are left in it.</param>
    public void OpenBusiestFolders(Enumeration.FileTable table) => _folders.OpenBusiest(table);

    /// <summary>Bytes read from files so far, by every stage of the scan.</summary>
    public long BytesRead => Volatile.Read(ref _bytesRead);

    /// <summary>Opens <paramref name="file"/> and checks it is still the file listed; on failure reports why and returns <see langword="null"/>.</summary>
    public SafeFileHandle? TryOpen(ScannedFile file, ReadHint hint = ReadHint.None)
    {
        var handle = OperatingSystem.IsLinux() ? TryOpenLinux(file) : TryOpenPortable(file);
        if (handle is not null)
        {
            Advise(handle, hint);
        }

        return handle;
    }

    /// <summary>Tells the kernel how <paramref name="handle"/> will be read (Linux; a hint, failures ignored).</summary>
    public static void Advise(SafeFileHandle handle, ReadHint hint)
    {
        if (hint != ReadHint.None && OperatingSystem.IsLinux())
        {
            AdviseLinux(handle, hint);
        }
    }

    /// <summary>Opens the node's file, reads each (offset, destination) pair exactly, closes it.</summary>
    /// <remarks>With <paramref name="recordPhysicalOffset"/> (rotational disks) the first extent's physical offset
    /// (FIEMAP) is noted while the file is open, so later full reads can follow disk order. A <paramref name="probe"/>
    /// asks the kernel not to read ahead around its small reads, and is not shown to the observer: a file told apart by
    /// its probe would only hold state it never needs. With a <paramref name="map"/> the offsets are content offsets.</remarks>
    public bool TryRead(FileNode node, long offset1, Span<byte> destination1, long offset2, Span<byte> destination2, bool recordPhysicalOffset = false, bool probe = false, IContentMap? map = null)
    {
        if (OperatingSystem.IsLinux() && map is null && !(recordPhysicalOffset && node.PhysicalOffset < 0))
        {
            return TryReadOnceLinux(node, offset1, destination1, offset2, destination2, probe);
        }

        using var handle = TryOpen(node.Primary, probe ? ReadHint.Random : ReadHint.None);
        if (handle is null)
        {
            return false;
        }

        if (recordPhysicalOffset && node.PhysicalOffset < 0)
        {
            node.PhysicalOffset = Topology.PhysicalOrder.FirstExtentOffset(handle);
        }

        if (!ReadExactly(node, map, handle, offset1, destination1) || (!destination2.IsEmpty && !ReadExactly(node, map, handle, offset2, destination2)))
        {
            return false;
        }

        if (!probe && map is null)
        {
            ShowObserver(node, offset1, destination1, offset2, destination2, OpenFile.Of(handle));
        }

        return true;
    }

    /// <summary>Shows the observer a read of file offsets (one or two pieces), if there is one.</summary>
    private void ShowObserver(FileNode node, long offset1, ReadOnlySpan<byte> destination1, long offset2, ReadOnlySpan<byte> destination2, OpenFile file)
    {
        if (_observer is not null)
        {
            _observer.OnRead(node, offset1, destination1, file);
            if (!destination2.IsEmpty)
            {
                _observer.OnRead(node, offset2, destination2, file);
            }
        }
    }

    /// <summary>
    /// A probe (as <see cref="TryRead(FileNode, long, Span{byte}, long, Span{byte}, bool, bool, IContentMap?)"/> with
    /// <c>probe</c>, whole-file offsets) that leaves the file open: the handle is returned for the comparer strategy to
    /// read on, should the probe not tell the file apart, instead of opening it again; <see langword="null"/> on failure
    /// (reported).
    /// </summary>
    public SafeFileHandle? TryProbeKeepingOpen(FileNode node, long offset1, Span<byte> destination1, long offset2, Span<byte> destination2)
    {
        var handle = TryOpen(node.Primary, ReadHint.Random);
        if (handle is not null
            && (!ReadExactly(node, null, handle, offset1, destination1) || (!destination2.IsEmpty && !ReadExactly(node, null, handle, offset2, destination2))))
        {
            handle.Dispose();
            return null;
        }

        return handle;
    }

    /// <summary>
    /// Reads the node's file whole into <paramref name="destination"/>, as a whole read of <see cref="TryRead(FileNode,
    /// long, Span{byte}, long, Span{byte}, bool, bool, IContentMap?)"/> does, and leaves it open (Linux): its descriptor,
    /// to be checked by <see cref="IsUnchanged(FileNode, int)"/> and closed by <see cref="Close"/>; -1 on failure
    /// (reported).
    /// </summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public int TryReadWholeKeepingOpen(FileNode node, Span<byte> destination) => TryReadWholeKeepingOpenLinux(node, destination);

    /// <summary>The last check (<see cref="IsUnchanged(FileNode, SafeFileHandle?)"/>) through a descriptor from <see cref="TryReadWholeKeepingOpen"/>.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public bool IsUnchanged(FileNode node, int descriptor) => IsUnchangedLinux(node, descriptor);

    /// <summary>Closes a descriptor from <see cref="TryReadWholeKeepingOpen"/>.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public static void Close(int descriptor) => _ = Libc.Close(descriptor);

    /// <summary>
    /// Reads exactly <paramref name="destination"/> at an offset of <paramref name="node"/> through an open handle: a
    /// file offset, or a content offset of <paramref name="map"/>. The observer sees file bytes at file offsets only,
    /// so mapped reads are not shown to it.
    /// </summary>
    public bool TryRead(FileNode node, SafeFileHandle handle, long offset, Span<byte> destination, IContentMap? map = null)
    {
        if (!ReadExactly(node, map, handle, offset, destination))
        {
            return false;
        }

        if (map is null)
        {
            _observer?.OnRead(node, offset, destination, OpenFile.Of(handle));
        }

        return true;
    }

    /// <summary>
    /// Reads at a file offset until <paramref name="destination"/> is full or the file ends, and returns the bytes
    /// read; for the media locators, which keep their own buffer. I/O errors are thrown, as the locators expect.
    /// </summary>
    public int ReadFull(SafeFileHandle handle, Span<byte> destination, long offset)
    {
        var read = PositionalRead.ReadFull(handle, destination, offset);
        Interlocked.Add(ref _bytesRead, read);
        return read;
    }

    /// <summary>
    /// Whether the node's file still has the identity, size and time it was listed with (a last check before reporting),
    /// through <paramref name="handle"/> while it is open, else by full path; if not, reports why.
    /// </summary>
    /// <remarks>The change time this check sees is recorded on <paramref name="node"/> for reports (Linux): taken here, on
    /// the files about to be reported, rather than kept for every enumerated file.</remarks>
    public bool IsUnchanged(FileNode node, SafeFileHandle? handle)
    {
        if (!OperatingSystem.IsLinux())
        {
            return IsUnchangedPortable(node.Primary);
        }

        if (handle is null || handle.IsClosed)
        {
            return IsUnchangedLinux(node, -1);
        }

        var added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            return IsUnchangedLinux(node, (int)handle.DangerousGetHandle());
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    /// <summary>
    /// <see cref="IsUnchanged(FileNode, SafeFileHandle?)"/> through the open file a read observer was shown (a
    /// <c>statx</c> of its descriptor on Linux, no walk of its path), or by path for <see cref="OpenFile.None"/>.
    /// </summary>
    public bool IsUnchanged(FileNode node, OpenFile file) =>
        file.Descriptor >= 0 && OperatingSystem.IsLinux() ? IsUnchangedLinux(node, file.Descriptor) : IsUnchanged(node, file.Handle);

    /// <summary>Closes the folder descriptors; called once the scan's readers have stopped.</summary>
    public void Dispose() => _folders.Dispose();

    private bool ReadExactly(FileNode node, IContentMap? map, SafeFileHandle handle, long offset, Span<byte> destination)
    {
        var file = node.Primary;
        byte[]? window = null;
        try
        {
            var total = 0;
            while (total < destination.Length)
            {
                var (fileOffset, available) = map?.Map(offset + total) ?? (offset + total, file.Length - (offset + total));
                var remaining = destination.Length - total;
                int placed;
                long read;
                if (map is null || available >= remaining || available >= GatherBelow)
                {
                    var want = (int)Math.Min(available, remaining);
                    placed = want <= 0 ? 0 : PositionalRead.Read(handle, destination.Slice(total, want), fileOffset);
                    read = placed;
                }
                else
                {
                    // Many small mapped pieces (image data chunks, video samples): one read of the span that holds them
                    // instead of a read per range.
                    placed = OperatingSystem.IsLinux()
                        ? ScatterReadLinux(map!, handle, offset + total, destination[total..], out read)
                        : GatherPortable(map!, file.Length, handle, offset + total, destination[total..], ref window, out read);
                }

                Interlocked.Add(ref _bytesRead, read);
                total += placed;
                if (placed == 0)
                {
                    ReportError(file.Path.ToString(), ScanErrorKind.Changed, "File shrank during the scan; left out");
                    return false;
                }
            }

            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            ReportException(file.Path.ToString(), ex);
            return false;
        }
        finally
        {
            if (window is not null)
            {
                _buffers.Return(window);
            }
        }
    }

    /// <summary>Ranges shorter than this are gathered from one larger read.</summary>
    private const int GatherBelow = 64 * 1024;

    /// <summary>Most file bytes one gathered read spans.</summary>
    private const int WindowSize = 256 * 1024;

    /// <summary>Gaps up to this are read through rather than skipped with another read.</summary>
    private const int MaxGap = 4096;

    /// <summary>
    /// Whether an open of <paramref name="file"/> should ask for <c>O_NOATIME</c> (reads then write no access time,
    /// which relatime still does for files not read in a day). The kernel refuses it (EPERM) on files the process
    /// does not own unless it has CAP_FOWNER, and each refusal costs a second open: so only files the process owns
    /// are asked for, or any file when running as root. Where owners are unknown (another enumerator) or root lacks
    /// CAP_FOWNER (a user namespace), the scan stops asking once <see cref="NoAtimeRefusalLimit"/> refusals
    /// outnumber the opens it was granted for.
    /// </summary>
    private bool AskNoAtime(ScannedFile file)
    {
        if (file.OwnerId != ScannedFile.UnknownOwner && file.OwnerId != _effectiveUid && _effectiveUid != 0)
        {
            return false;
        }

        var refused = Volatile.Read(ref _noAtimeRefusals);
        return refused < NoAtimeRefusalLimit || refused <= Volatile.Read(ref _noAtimeOpens);
    }

    private void ReportError(string path, ScanErrorKind kind, string message) => _errors.Report(path, kind, message);

    private void ReportChanged(ScannedFile file, string what) =>
        ReportError(file.Path.ToString(), ScanErrorKind.Changed, $"File changed during the scan ({what}); left out");

    private void ReportException(string path, Exception ex)
    {
        var kind = ex switch
        {
            FileNotFoundException or DirectoryNotFoundException => ScanErrorKind.NotFound,
            UnauthorizedAccessException => ScanErrorKind.AccessDenied,
            _ => ScanErrorKind.IOError,
        };
        ReportError(path, kind, ex.Message);
    }
}

/// <summary>How a file just opened will be read, told to the kernel (Linux; a hint, failures ignored).</summary>
internal enum ReadHint
{
    /// <summary>No hint: the kernel's default readahead.</summary>
    None,

    /// <summary>Small reads at each end (probes): readahead around them is wasted disk reads on a cold cache.</summary>
    Random,

    /// <summary>Front to back (full comparisons).</summary>
    Sequential,
}
