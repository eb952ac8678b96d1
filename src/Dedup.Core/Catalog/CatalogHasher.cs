using System.Collections.Concurrent;
using System.Security.Cryptography;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;

namespace Dedup.Core.Catalog;

/// <summary>
/// The SHA-256s a catalog scan records. As the scan's read observer it hashes the bytes the compare stage reads anyway
/// (each file of a shared size read whole, front to back), so those files are read once; the files the compare does not
/// read whole (told apart early, or of a size only another machine has) are read and hashed here afterwards.
/// </summary>
/// <remarks>
/// <para>A digest is kept under the file's listed stamp only when a check after its last read found the file unchanged,
/// its change time (ctime) included: a file rewritten with its size and modification time put back still gets none.</para>
/// <para>That check runs as the last read completes the digest, through the descriptor the read went through (still
/// open while the observer runs): a <c>statx</c> of it, not a walk of the file's path (measured in a 250k-file first
/// scan: the checks by path were ~8% of the client's CPU, #19 session 13). A checked digest goes to the catalog at
/// once, which stores it while the compare stage runs.</para>
/// </remarks>
internal sealed partial class CatalogHasher : IReadObserver
{
    private const int ReadSize = 256 * 1024;

    // The files whose digest was made (checked or not), by identity: structs in one set under a lock, no object per
    // file (measured in a 250k-file first scan: a concurrent dictionary's entry per file was promoted and marked by
    // every collection). Only the files read in pieces (large ones) have an entry in _partial, until their last piece.
    private readonly HashSet<FileIdentity> _complete = [];
    private readonly ConcurrentDictionary<FileIdentity, Progress> _partial = new();
    private IReadOnlyCollection<FileStamp>? _known;
    private ScanContext? _context;
    private Action<CatalogDigest>? _handOn;
    private volatile bool _stopped;

    /// <summary>
    /// Starts hashing what the compare stage reads, but for the files whose stamp has a digest stored; checked digests go
    /// to <paramref name="handOn"/> as they complete (checked through <paramref name="context"/>'s reader).
    /// </summary>
    public void Start(IReadOnlyCollection<FileStamp> known, ScanContext context, Action<CatalogDigest> handOn)
    {
        (_context, _handOn) = (context, handOn);
        Volatile.Write(ref _known, known);
    }

    /// <summary>Stops hashing (the catalog failed): later reads are not looked at.</summary>
    public void Stop() => _stopped = true;

    public bool TakesCopies => true;

    /// <summary>Bytes hashed so far (a copy that took its class's digest hashed none).</summary>
    internal long BytesHashed => Interlocked.Read(ref _bytesHashed);

    public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenedFile file, FileNode? sameAs)
    {
        if (_stopped || Volatile.Read(ref _known) is not { } known)
        {
            return;
        }

        var identity = node.Primary.Identity;
        if (!_following.IsEmpty && _following.TryGetValue(identity, out var follow))
        {
            FollowOn(node, follow, offset, bytes.Length, sameAs, file);
            return;
        }

        if (_partial.IsEmpty || !_partial.TryGetValue(identity, out var progress))
        {
            // Only a read from the start begins a digest; a file with a digest stored under its stamp needs none.
            if (offset != 0 || Contains(known, node.Primary.Stamp))
            {
                return;
            }

            if (sameAs is not null && TryFollow(node, bytes.Length, sameAs, file))
            {
                return;
            }

            var length = node.Primary.Length;
            bool fresh;
            lock (_complete)
            {
                // Read whole at once (small files) completes it here; otherwise only a file not hashed yet begins.
                fresh = bytes.Length == length ? _complete.Add(identity) : !_complete.Contains(identity);
            }

            if (!fresh)
            {
                return;
            }

            if (bytes.Length == length)
            {
                // One-shot hashing, no hash object; its copies read next take it (TryFollow).
                var whole = Sha256(bytes);
                Interlocked.Add(ref _bytesHashed, bytes.Length);
                t_lastWhole = (_id, identity, whole);
                OnCompleted(node, whole, file);
                return;
            }

            progress = _partial.GetOrAdd(identity, static (_, state) => new Progress(state.length, state.hasher), (length, hasher: this));
        }

        if (progress.Feed(offset, bytes) is { } sha)
        {
            // Complete before its progress goes: a read of it starting meanwhile finds one or the other.
            lock (_complete)
            {
                _complete.Add(identity);
            }

            _partial.TryRemove(identity, out _);
            OnCompleted(node, sha, file);
        }
    }

    /// <summary>A digest just completed by a read through <paramref name="file"/> (still open): checked through it, handed on if the file is still as listed.</summary>
    private void OnCompleted(FileNode node, byte[] sha, OpenedFile file)
    {
        if (_context is { } context && _handOn is { } handOn && context.Live.IsLive(node) && StillListed(context, file))
        {
            handOn(new CatalogDigest(node.Primary.Stamp, sha));
        }
    }

    /// <summary>
    /// The identities of every file the compare stage read whole (changed ones included: they are not read again);
    /// frees what is left of the others' digests.
    /// </summary>
    public HashSet<FileIdentity> TakeReadWhole()
    {
        foreach (var entry in _partial)
        {
            entry.Value.Dispose();
        }

        _partial.Clear();
        _following.Clear(); // copies whose class's first file was not read to its end: read and hashed on their own

        return _complete; // the compare stage ended: no read adds to it any more
    }

    /// <summary>Reads and hashes one whole file; <see langword="null"/> when it failed or changed (a read failure is reported).</summary>
    public static byte[]? HashOne(ScanContext context, ScannedFile file, CancellationToken cancellationToken)
    {
        var node = new FileNode(file);
        // Most files fit one read: no read-ahead advice (a system call) for them.
        var small = file.Length < ReadSize;
        var opened = context.Reader.TryOpen(node, small ? ReadHint.None : ReadHint.Sequential);
        if (!opened.IsOpen)
        {
            return null; // reported by the reader
        }

        var buffer = context.Options.Buffers.Rent(ReadSize);
        try
        {
            byte[] sha;
            long offset;
            if (small)
            {
                // One read past the listed length tells a file that grew.
                offset = context.Reader.ReadFull(opened, buffer.AsSpan(0, ReadSize), 0);
                sha = Sha256(buffer.AsSpan(0, (int)offset));
            }
            else
            {
                var incremental = RentHash();
                try
                {
                    offset = 0;
                    int read;
                    while ((read = context.Reader.ReadFull(opened, buffer.AsSpan(0, ReadSize), offset)) > 0)
                    {
                        cancellationToken.ThrowIfCancellationRequested();
                        incremental.AppendData(buffer, 0, read);
                        offset += read;
                    }
                }
                catch
                {
                    incremental.Dispose(); // midway: not reset, not reused
                    throw;
                }

                sha = Finish(incremental);
            }

            // The digest is stored under the listed stamp: only while the file still has it, and all its bytes were read.
            return offset == file.Length && StillListed(context, opened) ? sha : null;
        }
        catch (IOException error)
        {
            context.Errors.Report(file.Path.ToString(), ScanErrorKind.IOError, error.Message);
            return null;
        }
        finally
        {
            context.Options.Buffers.Return(buffer);
            opened.Close();
        }
    }

    /// <summary>
    /// Whether the file still has its listed stamp after its last read: identity, size and modification time (the
    /// reader's check, through <paramref name="file"/> while it is open), and on Linux the change time too.
    /// </summary>
    private static bool StillListed(ScanContext context, in OpenedFile file)
    {
        var node = file.Node!;
        if (!context.Reader.IsUnchanged(file))
        {
            return false;
        }

        // The reader's check leaves the change time it saw on the node (Linux); any write since the listing moved it.
        var listed = node.Primary.Stamp.ChangeTimeNs;
        return !OperatingSystem.IsLinux() || listed == 0 || node.LastChangeTimeUtc == FileTable.ToDateTime(listed);
    }

    private static bool Contains(IReadOnlyCollection<FileStamp> known, FileStamp stamp) =>
        known is HashSet<FileStamp> set ? set.Contains(stamp) : known.Count > 0 && known.Contains(stamp);

    private static byte[] Sha256(ReadOnlySpan<byte> bytes)
    {
        var digest = new byte[32];
        SHA256.HashData(bytes, digest); // netstandard2.0: Compat/Polyfills.cs
        return digest;
    }

    // Hash objects reused across files: each is a native context made and freed, and a first fleet scan of 250k files hashed
    // ~39k files in pieces (~7 MiB of managed objects, a uprobe on the allocator). Only a hash reset by its last digest
    // comes back (GetHashAndReset); one given up midway is disposed.
    private const int PooledHashes = 64;
    private static readonly ConcurrentBag<IncrementalHash> s_hashes = [];
    private static int s_pooled;

    private static IncrementalHash RentHash()
    {
        if (s_hashes.TryTake(out var hash))
        {
            Interlocked.Decrement(ref s_pooled);
            return hash;
        }

        return IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
    }

    /// <summary>The digest of all the bytes appended; the hash, reset by it, goes back to the pool (or is disposed past its size).</summary>
    private static byte[] Finish(IncrementalHash hash)
    {
        var sha = hash.GetHashAndReset();
        if (Interlocked.Increment(ref s_pooled) <= PooledHashes)
        {
            s_hashes.Add(hash);
        }
        else
        {
            Interlocked.Decrement(ref s_pooled);
            hash.Dispose();
        }

        return sha;
    }

    /// <summary>One file's digest as its bytes arrive in order; bytes read again (a strategy going over a file twice) are skipped.</summary>
    private sealed class Progress(long length, CatalogHasher hasher) : IDisposable
    {
        private IncrementalHash? _hash;
        private long _next;
        private long _lastFed = -1; // where the bytes of the last call began, when it hashed them; -1 when it did not

        /// <summary>The whole file's SHA-256, once every byte was fed in order.</summary>
        public byte[]? Sha { get; private set; }

        /// <summary>Whether the last bytes given were hashed, and were <paramref name="count"/> bytes at <paramref name="offset"/>, in order from the start.</summary>
        public bool JustFed(long offset, int count)
        {
            lock (this)
            {
                return _lastFed == offset && _next == offset + count;
            }
        }

        /// <summary>Hashes the bytes; the digest when they completed it.</summary>
        public byte[]? Feed(long offset, ReadOnlySpan<byte> bytes)
        {
            lock (this)
            {
                _lastFed = -1;
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

                _hash ??= RentHash();
#if NET
                _hash.AppendData(bytes);
#else
                _hash.AppendData(bytes.ToArray());
#endif
                Interlocked.Add(ref hasher._bytesHashed, bytes.Length);
                _lastFed = offset;
                _next += bytes.Length;
                if (_next == length)
                {
                    Sha = Finish(_hash);
                    _hash = null;
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
