using System.Collections.Concurrent;
using System.Security.Cryptography;
using Dedup.Core.Caching;
using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Catalog;

/// <summary>
/// The SHA-256s a catalog scan records. As the scan's read observer it hashes the bytes the compare stage reads anyway
/// (each file of a shared size read whole, front to back), so those files are read once; the files the compare does not
/// read whole (told apart early, or of a size only another machine has) are read and hashed here afterwards.
/// </summary>
/// <remarks>
/// <para>A digest is kept under the file's listed stamp only when a check after its last read found the file unchanged,
/// its change time (ctime) included: a file rewritten with its size and modification time put back still gets none.</para>
/// <para>Digests are handed on while the compare stage runs: every <see cref="HandOnEvery"/> completed digests, the
/// reading thread that completes one checks those completed a round before (by then the compare's own last check has
/// usually looked at the files it groups) and hands them to the catalog, which stores them beside the comparison
/// instead of after it. The rest are checked and handed on by <see cref="TakeDigests"/>.</para>
/// </remarks>
internal sealed class CatalogHasher : IReadObserver
{
    private const int ReadSize = 256 * 1024;

    // By identity, and a completed file's entry is the shared Progress.Complete: the nodes (and their files) are held
    // only for the round between their digest's completion and its check, not to the end of the compare stage
    // (measured in a 250k-file first scan: the digests' progress entries and the nodes they kept were promoted).
    private readonly ConcurrentDictionary<FileIdentity, Progress> _progress = new();
    private readonly ConcurrentQueue<Completed> _completed = new();
    private readonly object _handOnLock = new();
    private List<Completed> _aged = [];
    private IReadOnlyCollection<FileStamp>? _known;
    private ScanState? _state;
    private Action<CatalogDigest>? _handOn;
    private int _completions;
    private volatile bool _stopped;

    /// <summary>How many digests complete between two hand-ons during the compare stage.</summary>
    internal int HandOnEvery { get; init; } = 4096;

    /// <summary>
    /// Starts hashing what the compare stage reads, but for the files whose stamp has a digest stored; with
    /// <paramref name="handOn"/>, checked digests go to it while the compare runs (through <paramref name="state"/>'s reader).
    /// </summary>
    public void Start(IReadOnlyCollection<FileStamp> known, ScanState? state = null, Action<CatalogDigest>? handOn = null)
    {
        (_state, _handOn) = (state, handOn);
        Volatile.Write(ref _known, known);
    }

    /// <summary>Stops hashing (the catalog failed): later reads are not looked at.</summary>
    public void Stop() => _stopped = true;

    public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes)
    {
        if (_stopped || Volatile.Read(ref _known) is not { } known)
        {
            return;
        }

        var identity = node.Primary.Identity;
        if (!_progress.TryGetValue(identity, out var progress))
        {
            // Only a read from the start begins a digest; a file with a digest stored under its stamp needs none.
            if (offset != 0 || Contains(known, node.Stamp))
            {
                return;
            }

            var length = node.Primary.Length;
            if (bytes.Length == length)
            {
                // Read whole at once (small files): one-shot hashing, no hash object.
                if (_progress.TryAdd(identity, Progress.Complete))
                {
                    OnCompleted(node, Sha256(bytes));
                }

                return;
            }

            progress = _progress.GetOrAdd(identity, static (_, length) => new Progress(length), length);
        }

        if (progress.Feed(offset, bytes) is { } sha)
        {
            _progress[identity] = Progress.Complete;
            OnCompleted(node, sha);
        }
    }

    /// <summary>Queues a completed digest; every <see cref="HandOnEvery"/>th completion hands on those of the round before.</summary>
    private void OnCompleted(FileNode node, byte[] sha)
    {
        // The change time the node carries now: a later one means the compare checked the file after this read.
        _completed.Enqueue(new Completed(node, sha, node.LastChangeTimeUtc));
        if (_handOn is not null && Interlocked.Increment(ref _completions) % HandOnEvery == 0)
        {
            HandOnAged();
        }
    }

    private void HandOnAged()
    {
        if (_state is not { } state || _handOn is not { } handOn || !Monitor.TryEnter(_handOnLock))
        {
            return; // another thread is handing on: this round waits for the next
        }

        try
        {
            var aged = _aged;
            _aged = new List<Completed>(HandOnEvery);
            while (_completed.TryDequeue(out var completed))
            {
                _aged.Add(completed);
            }

            foreach (var (node, sha, seen) in aged)
            {
                if (_stopped)
                {
                    return;
                }

                if (node.Dropped)
                {
                    continue;
                }

                if (CheckedAfterRead(state, new Completed(node, sha, seen)))
                {
                    handOn(new CatalogDigest(node.Stamp, sha));
                }
            }
        }
        finally
        {
            Monitor.Exit(_handOnLock);
        }
    }

    /// <summary>
    /// The digests the compare stage's reads gave, of files still as listed (checked here when the compare did not
    /// check them after their last read), and the identities of every file it read whole (changed ones included: they
    /// are not read again); frees what is left of the others.
    /// </summary>
    public (List<CatalogDigest> Digests, HashSet<FileIdentity> ReadWhole) TakeDigests(ScanState state, ScanThreads threads, CancellationToken cancellationToken)
    {
        var readWhole = new HashSet<FileIdentity>();
        foreach (var entry in _progress)
        {
            entry.Value.Dispose();
            if (entry.Value.Sha is not null)
            {
                readWhole.Add(entry.Key);
            }
        }

        _progress.Clear();
        List<Completed> done;
        lock (_handOnLock)
        {
            (done, _aged) = (_aged, []);
            while (_completed.TryDequeue(out var completed))
            {
                done.Add(completed);
            }
        }

        done.RemoveAll(static completed => completed.Node.Dropped);

        // The checks of files no group check looked at are a stat each, by path: spread over the scan's threads.
        var digests = new List<CatalogDigest>(done.Count);
        threads.ForEach(done, file =>
        {
            if (CheckedAfterRead(state, file))
            {
                lock (digests)
                {
                    digests.Add(new CatalogDigest(file.Node.Stamp, file.Sha));
                }
            }
        }, cancellationToken);
        return (digests, readWhole);
    }

    /// <summary>
    /// Whether a completed digest's file is still as listed: a check by the compare after the digest's last read stands
    /// (the node's change time moved from what it was then); otherwise the file is looked at now.
    /// </summary>
    private static bool CheckedAfterRead(ScanState state, Completed completed)
    {
        var now = completed.Node.LastChangeTimeUtc;
        return StillListed(state, completed.Node, handle: null, checkedBefore: now != completed.Seen && now != DateTime.MinValue);
    }

    /// <summary>Reads and hashes one whole file; <see langword="null"/> when it failed or changed (a read failure is reported).</summary>
    public static byte[]? HashOne(ScanState state, ScannedFile file, CancellationToken cancellationToken)
    {
        var node = new FileNode(file);
        // Most files fit one read: no read-ahead advice (a system call) for them.
        var small = file.Length < ReadSize;
        using var handle = state.Reader.TryOpen(file, small ? ReadHint.None : ReadHint.Sequential);
        if (handle is null)
        {
            return null; // reported by the reader
        }

        var buffer = state.Options.Buffers.Rent(ReadSize);
        try
        {
            byte[] sha;
            long offset;
            if (small)
            {
                // One read past the listed length tells a file that grew.
                offset = state.Reader.ReadFull(handle, buffer.AsSpan(0, ReadSize), 0);
                sha = Sha256(buffer.AsSpan(0, (int)offset));
            }
            else
            {
                using var incremental = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
                offset = 0;
                int read;
                while ((read = state.Reader.ReadFull(handle, buffer.AsSpan(0, ReadSize), offset)) > 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    incremental.AppendData(buffer, 0, read);
                    offset += read;
                }

                sha = incremental.GetHashAndReset();
            }

            // The digest is stored under the listed stamp: only while the file still has it, and all its bytes were read.
            return offset == file.Length && StillListed(state, node, handle, checkedBefore: false) ? sha : null;
        }
        catch (IOException error)
        {
            state.ReportError(file.Path.ToString(), ScanErrorKind.IOError, error.Message);
            return null;
        }
        finally
        {
            state.Options.Buffers.Return(buffer);
        }
    }

    /// <summary>
    /// Whether the file still has its listed stamp after its last read: identity, size and modification time (the
    /// reader's check), and on Linux the change time too. With <paramref name="checkedBefore"/> a check the compare
    /// stage made after its reads (a group's last check) stands; otherwise the file is looked at now.
    /// </summary>
    private static bool StillListed(ScanState state, FileNode node, SafeFileHandle? handle, bool checkedBefore)
    {
        var linux = OperatingSystem.IsLinux();
        if (!(linux && checkedBefore && node.LastChangeTimeUtc != DateTime.MinValue) && !state.Reader.IsUnchanged(node, handle))
        {
            return false;
        }

        // The reader's check leaves the change time it saw on the node (Linux); any write since the listing moved it.
        var listed = node.Stamp.ChangeTimeNs;
        return !linux || listed == 0 || node.LastChangeTimeUtc == FileTable.ToDateTime(listed);
    }

    private static bool Contains(IReadOnlyCollection<FileStamp> known, FileStamp stamp) =>
        known is HashSet<FileStamp> set ? set.Contains(stamp) : known.Count > 0 && known.Contains(stamp);

    private static byte[] Sha256(ReadOnlySpan<byte> bytes)
    {
        var digest = new byte[32];
        SHA256.HashData(bytes, digest); // netstandard2.0: Compat/Polyfills.cs
        return digest;
    }

    /// <summary>A digest completed during the compare stage, with the node's change time as it was then.</summary>
    private readonly record struct Completed(FileNode Node, byte[] Sha, DateTime Seen);

    /// <summary>One file's digest as its bytes arrive in order; bytes read again (a strategy going over a file twice) are skipped.</summary>
    private sealed class Progress(long length) : IDisposable
    {
        private IncrementalHash? _hash;
        private long _next;

        /// <summary>The entry of every file whose digest is complete (the digest itself waits in the queue to be checked).</summary>
        public static readonly Progress Complete = new(0) { Sha = [] };

        /// <summary>The whole file's SHA-256, once every byte was fed in order.</summary>
        public byte[]? Sha { get; private set; }

        /// <summary>Hashes the bytes; the digest when they completed it.</summary>
        public byte[]? Feed(long offset, ReadOnlySpan<byte> bytes)
        {
            lock (this)
            {
                if (Sha is not null || _next < 0 || offset < _next)
                {
                    return null; // done, given up, or bytes already hashed
                }

                if (offset > _next)
                {
                    // A gap (never for the built-in strategies): this file is hashed by a read of its own later.
                    Release();
                    _next = -1;
                    return null;
                }

                _hash ??= IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
#if NET
                _hash.AppendData(bytes);
#else
                _hash.AppendData(bytes.ToArray());
#endif
                _next += bytes.Length;
                if (_next == length)
                {
                    Sha = _hash.GetHashAndReset();
                    Release();
                    return Sha;
                }

                return null;
            }
        }

        public void Dispose()
        {
            lock (this)
            {
                Release();
            }
        }

        private void Release()
        {
            _hash?.Dispose();
            _hash = null;
        }
    }
}
