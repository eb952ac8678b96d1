using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Pooling;
using Dedup.Core.Reporting;

namespace Dedup.Core.IO;

/// <summary>
/// The one way a scan reads files; one instance per scan, shared by its threads. It opens candidate files (relative
/// to cached folder descriptors, asking for <c>O_NOATIME</c> where the kernel allows it), checks each is still the
/// file the scan listed (identity, size, modification time), gives read hints, reads content positionally (whole
/// files, or the pieces an <see cref="IContentMap"/> names), counts every byte read, and makes the last unchanged-check
/// before a group is reported. Each open gives an <see cref="OpenedFile"/>, the caller's to close or keep; the read
/// kinds are methods (<see cref="TryReadWhole"/>, <see cref="TryProbe"/>, <see cref="TryRead"/> through an open file,
/// <see cref="ReadFull"/>), not flags. Failures are reported as <see cref="ScanError"/>s, never thrown (but by
/// <see cref="ReadFull"/>). Platform code lives in the <c>.Linux.cs</c> and <c>.Portable.cs</c> parts; this file holds
/// the only dispatch between them.
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
    private readonly string? _sourceName;
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
    /// <param name="sourceName">The custom enumerator that listed the files, named in a "changed" error; <see langword="null"/> for the library's walk.</param>
    public FileReader(BufferPool buffers, ScanErrorSink errors, bool trustedIdentities, IReadObserver? observer = null, int threads = 1, IEnumerable<Paths.AbsolutePath>? roots = null, bool refuseLinks = false, string? sourceName = null)
    {
        _sourceName = sourceName;
        _folders = new FolderHandles((long)threads * OpenFileSet.MaxOpen, roots, refuseLinks);
        _refuseLinks = refuseLinks;
        _buffers = buffers;
        _errors = errors;
        _identities = new IdentityCheck(trustedIdentities);
        _observer = observer;
        _effectiveUid = OperatingSystem.IsLinux() ? Libc.GetEuid() : ScannedFile.UnknownOwner;
    }

    /// <summary>Gives the folders with the most candidates at or below them their descriptors first (see <see cref="BusiestFolders"/>).</summary>
    /// <param name="table">The table once past the size barrier: only the candidates are left in it.</param>
    public void OpenBusiestFolders(FileTable table) => BusiestFolders.Open(_folders, table);

    /// <summary>Whether the observer takes copies (<see cref="IReadObserver.TakesCopies"/>): the comparer then shows it the bytes itself (<see cref="Observe"/>).</summary>
    public bool ObservesCopies => _observer is { TakesCopies: true };

    /// <summary>Bytes read from files so far, by every stage of the scan.</summary>
    public long BytesRead => Volatile.Read(ref _bytesRead);

    /// <summary>
    /// Opens the node's file and checks it is still the file listed; on failure reports why and returns
    /// <see cref="OpenedFile.None"/>. The caller owns the result: it closes it, or keeps it for later reads.
    /// </summary>
    public OpenedFile TryOpen(FileNode node, ReadHint hint = ReadHint.None)
    {
        var file = OperatingSystem.IsLinux() ? TryOpenLinux(node) : TryOpenPortable(node);
        if (file.IsOpen)
        {
            Advise(file, hint);
        }

        return file;
    }

    /// <summary>Tells the kernel how <paramref name="file"/> will be read (Linux; a hint, failures ignored).</summary>
    public static void Advise(in OpenedFile file, ReadHint hint)
    {
        if (hint != ReadHint.None && OperatingSystem.IsLinux())
        {
            AdviseLinux(file.Descriptor, hint);
        }
    }

    /// <summary>
    /// Opens the node's file and reads its content whole into <paramref name="destination"/> (its file, or with a
    /// <paramref name="map"/> the mapped content); the observer sees the bytes of an unmapped read while the file is
    /// open. Returns the open file, the caller's to close or keep (its last check can then go through it);
    /// <see cref="OpenedFile.None"/> on failure (reported; nothing left open).
    /// </summary>
    /// <remarks>With <paramref name="observe"/> off the caller shows the bytes to the observer itself while the file is
    /// still open, once it compared them (<see cref="Observe"/>).</remarks>
    public OpenedFile TryReadWhole(FileNode node, Span<byte> destination, IContentMap? map = null, bool observe = true)
    {
        var file = TryOpen(node);
        if (!file.IsOpen)
        {
            return file;
        }

        if (!ReadExactly(file, map, 0, destination))
        {
            file.Close();
            return OpenedFile.None;
        }

        if (map is null && observe && _observer is not null)
        {
            try
            {
                _observer.OnRead(node, 0, destination, file, sameAs: null);
            }
            catch
            {
                file.Close(); // an observer that throws leaves no file open behind
                throw;
            }
        }

        return file;
    }

    /// <summary>
    /// Opens the node's file for a probe: <paramref name="prefix"/> from its start and, unless empty,
    /// <paramref name="suffix"/> at <paramref name="suffixOffset"/> (content offsets with a <paramref name="map"/>).
    /// The kernel is told not to read ahead around these small reads, and the observer is not shown them: a file
    /// told apart by its probe would only hold state it never needs. Returns the open file, the caller's to close or
    /// keep for the comparer strategy to read on; <see cref="OpenedFile.None"/> on failure (reported; nothing left open).
    /// </summary>
    public OpenedFile TryProbe(FileNode node, Span<byte> prefix, long suffixOffset, Span<byte> suffix, IContentMap? map = null)
    {
        var file = TryOpen(node, ReadHint.Random);
        if (file.IsOpen && (!ReadExactly(file, map, 0, prefix) || (!suffix.IsEmpty && !ReadExactly(file, map, suffixOffset, suffix))))
        {
            file.Close();
            return OpenedFile.None;
        }

        return file;
    }

    /// <summary>Notes the physical offset of the file's first extent on its node (rotational disks: later reads follow disk order).</summary>
    public static void RecordPhysicalOffset(in OpenedFile file)
    {
        if (OperatingSystem.IsLinux() && file.Node is { PhysicalOffset: < 0 } node)
        {
            node.PhysicalOffset = Topology.PhysicalOrder.FirstExtentOffset(file.Descriptor);
        }
    }

    /// <summary>
    /// Reads exactly <paramref name="destination"/> at an offset of an open file: a file offset, or a content offset
    /// of <paramref name="map"/>. The observer sees file bytes at file offsets only, so mapped reads are not shown to it.
    /// </summary>
    /// <remarks>With <paramref name="observe"/> off the caller shows the bytes to the observer itself, once it compared
    /// them (<see cref="Observe"/>).</remarks>
    public bool TryRead(in OpenedFile file, long offset, Span<byte> destination, IContentMap? map = null, bool observe = true)
    {
        if (!ReadExactly(file, map, offset, destination))
        {
            return false;
        }

        if (map is null && observe)
        {
            _observer?.OnRead(file.Node!, offset, destination, file, sameAs: null);
        }

        return true;
    }

    /// <summary>
    /// Shows the observer bytes read at a file offset of <paramref name="file"/> (still open) by <see cref="TryRead"/>
    /// without it, with the file whose bytes there the caller found equal to them (<see cref="IReadObserver.OnRead"/>).
    /// </summary>
    public void Observe(in OpenedFile file, long offset, ReadOnlySpan<byte> bytes, FileNode? sameAs) =>
        _observer?.OnRead(file.Node!, offset, bytes, file, sameAs);

    /// <summary>
    /// Reads at a file offset until <paramref name="destination"/> is full or the file ends, and returns the bytes
    /// read; for the media locators and the catalog, which keep their own buffer. I/O errors are thrown, as they expect.
    /// </summary>
    public int ReadFull(in OpenedFile file, Span<byte> destination, long offset)
    {
        if (file.Node is { } node)
        {
            node.CheckedSinceRead = false; // the media locators read through handles of no node
        }

        var total = 0;
        while (total < destination.Length)
        {
            var read = ReadAt(file, destination[total..], offset + total);
            if (read <= 0)
            {
                break;
            }

            total += read;
        }

        Interlocked.Add(ref _bytesRead, total);
        return total;
    }

    /// <summary>
    /// Whether the file still has the identity, size and time it was listed with (a last check before reporting),
    /// through <paramref name="file"/> while it is open (a <c>statx</c> of its descriptor on Linux, no walk of its
    /// path); if not, reports why.
    /// </summary>
    /// <remarks>The change time this check sees is recorded on the node for reports (Linux): taken here, on the files
    /// about to be reported, rather than kept for every enumerated file.</remarks>
    public bool IsUnchanged(in OpenedFile file)
    {
        var node = file.Node!;
        if (!OperatingSystem.IsLinux())
        {
            return IsUnchangedPortable(node.Primary);
        }

        if (!file.IsOpen)
        {
            return IsUnchangedLinux(node, -1);
        }

        if (node.CheckedSinceRead)
        {
            return true; // checked through a descriptor since its last read: the same answer
        }

        return node.CheckedSinceRead = IsUnchangedLinux(node, file.Descriptor);
    }

    /// <summary>As <see cref="IsUnchanged(in OpenedFile)"/> for a file not open: by its path.</summary>
    public bool IsUnchanged(FileNode node) =>
        OperatingSystem.IsLinux() ? IsUnchangedLinux(node, -1) : IsUnchangedPortable(node.Primary);

    /// <summary>Closes the folder descriptors; called once the scan's readers have stopped.</summary>
    public void Dispose() => _folders.Dispose();

    /// <summary>
    /// Reads exactly <paramref name="destination"/> at <paramref name="offset"/> (a content offset with a
    /// <paramref name="map"/>); a failure is reported. Unmapped reads on Linux go straight to <c>pread</c>.
    /// </summary>
    private bool ReadExactly(in OpenedFile opened, IContentMap? map, long offset, Span<byte> destination)
    {
        opened.Node!.CheckedSinceRead = false;
        var file = opened.Node.Primary;
        if (map is null && OperatingSystem.IsLinux())
        {
            return ReadExactlyLinux(file, opened.Descriptor, offset, destination);
        }

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
                    placed = want <= 0 ? 0 : ReadAt(opened, destination.Slice(total, want), fileOffset);
                    read = placed;
                }
                else
                {
                    // Many small mapped pieces (image data chunks, video samples): one read of the span that holds them
                    // instead of a read per range.
                    placed = OperatingSystem.IsLinux()
                        ? ScatterReadLinux(map!, opened.Descriptor, offset + total, destination[total..], out read)
                        : GatherPortable(map!, file.Length, opened.Handle!, offset + total, destination[total..], ref window, out read);
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

    /// <summary>One positional read (0 at end of file); errors thrown.</summary>
    private static int ReadAt(in OpenedFile file, Span<byte> destination, long offset) =>
        OperatingSystem.IsLinux() ? PositionalRead.Read(file.Descriptor, destination, offset) : PositionalRead.Read(file.Handle!, destination, offset);

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
