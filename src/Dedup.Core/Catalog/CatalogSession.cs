using System.Security.Cryptography;
using Dedup.Core.Caching;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;

namespace Dedup.Core.Catalog;

/// <summary>
/// One scan's use of its <see cref="FileCatalog"/>: every row of the table goes to the catalog at the size barrier
/// (streamed, before unique sizes are dropped), the files it names are hashed with SHA-256 while the compare stage
/// runs, and its groups that span machines are reported after the scan's own. A failure ends the catalog's part only.
/// </summary>
internal sealed class CatalogSession(FileCatalog catalog, string machine, Action<string>? log)
{
    private const int ReadSize = 256 * 1024;

    private List<ScannedFile> _toHash = [];
    private Exception? _error;
    private long _recorded;
    private long _hashed;
    private int _groups;
    private Dictionary<string, AbsolutePath?>? _folders;

    public string Machine => machine;

    public CatalogStatistics Statistics => new()
    {
        Machine = machine,
        FilesRecorded = Volatile.Read(ref _recorded),
        FilesHashed = Volatile.Read(ref _hashed),
        GroupsAcrossMachines = Volatile.Read(ref _groups),
        Error = Volatile.Read(ref _error),
    };

    /// <summary>At the size barrier: hands every row to the catalog and keeps the files it asks a digest for.</summary>
    public async Task ReplaceAsync(FileTable table, CancellationToken cancellationToken)
    {
        table.Seal();
        try
        {
            var toHash = await catalog.ReplaceFilesAsync(machine, Rows(table), cancellationToken).ConfigureAwait(false);
            Volatile.Write(ref _recorded, table.Count);
            _toHash = Match(table, toHash);
        }
        catch (Exception error) when (error is not OperationCanceledException)
        {
            Fail(error, cancellationToken);
        }
    }

    /// <summary>Hashes the files asked for, records the digests and returns the groups that span machines (none after a failure).</summary>
    /// <remarks>
    /// The hashing blocks on reads: it runs on the scan's <paramref name="threads"/> beside the compare stage, never on
    /// the host's thread pool (#13); only the catalog's own awaits leave them.
    /// </remarks>
    public async Task<IReadOnlyList<DuplicateGroup>> FinishAsync(ScanState state, ScanThreads threads, CancellationToken cancellationToken)
    {
        if (Volatile.Read(ref _error) is not null)
        {
            return [];
        }

        try
        {
            List<CatalogDigest> digests = [];
            await threads.RunAsync(() => digests = Hash(state, threads, cancellationToken)).ConfigureAwait(false);
            _toHash = [];
            if (digests.Count > 0)
            {
                await catalog.RecordDigestsAsync(machine, digests, cancellationToken).ConfigureAwait(false);
            }

            var found = await catalog.FindGroupsAcrossMachinesAsync(machine, cancellationToken).ConfigureAwait(false);
            var groups = new List<DuplicateGroup>();
            foreach (var group in found)
            {
                if (ToGroup(group) is { } spanning)
                {
                    groups.Add(spanning);
                }
            }

            _folders = null;
            Volatile.Write(ref _groups, groups.Count);
            return groups;
        }
        catch (Exception error) when (error is not OperationCanceledException)
        {
            Fail(error, cancellationToken);
            return [];
        }
    }

    /// <summary>Notes why the catalog cannot be used; a failure caused by the scan's cancellation is the cancellation.</summary>
    private void Fail(Exception error, CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            throw new OperationCanceledException("The scan was cancelled.", error, cancellationToken);
        }

        Volatile.Write(ref _error, error);
        log?.Invoke($"The file catalog could not be used; only this machine's groups are reported: {error.Message}");
    }

    /// <summary>The table's rows as catalog files, made one at a time as the catalog reads them (nothing kept).</summary>
    /// <remarks>
    /// Paths are the kernel's bytes (<see cref="AbsolutePath.WriteUtf8(Span{byte}, ReadOnlySpan{byte})"/>); a path past
    /// the buffer, or a name the table keeps as text, takes its exact bytes from the path's text. A name with no byte
    /// form at all (an unpaired surrogate on Windows) is not recorded: a lossy path would name another file.
    /// </remarks>
    private static IEnumerable<CatalogFile> Rows(FileTable table)
    {
        var buffer = new byte[4096];
        for (var i = 0; i < table.Count; i++)
        {
            var row = table[i];
            var name = table.Names.GetBytes(row.Name);
            var length = name.IsEmpty ? -1 : table.GetFolder(row.Folder).WriteUtf8(buffer, name);
            byte[]? path = length >= 0 ? buffer.AsSpan(0, length).ToArray()
                : KernelNames.TryGetBytes(table.GetPath(i).ToString(), out var exact) ? exact
                : null;
            if (path is not null)
            {
                yield return new CatalogFile(path, new FileStamp(row.Identity, row.Length, row.LastWriteTimeNs, row.ChangeTimeNs));
            }
        }
    }

    /// <summary>The table's files the catalog asked a digest for, one per identity, while the rows are all still there.</summary>
    private static List<ScannedFile> Match(FileTable table, IReadOnlyList<CatalogFile> asked)
    {
        var files = new List<ScannedFile>(asked.Count);
        if (asked.Count == 0)
        {
            return files;
        }

        var stamps = new Dictionary<FileIdentity, FileStamp>(asked.Count);
        foreach (var file in asked)
        {
            stamps[file.Stamp.Identity] = file.Stamp;
        }

        for (var i = 0; i < table.Count && stamps.Count > 0; i++)
        {
            ref var row = ref table[i];
            if (stamps.TryGetValue(row.Identity, out var stamp)
                && stamp == new FileStamp(row.Identity, row.Length, row.LastWriteTimeNs, row.ChangeTimeNs))
            {
                stamps.Remove(row.Identity);
                files.Add(new ScannedFile(in row, table.GetPath(i)));
            }
        }

        return files;
    }

    /// <summary>SHA-256 of each whole file asked for, on the scan's degree of parallelism; a file that changed meanwhile gets none.</summary>
    private List<CatalogDigest> Hash(ScanState state, ScanThreads threads, CancellationToken cancellationToken)
    {
        var digests = new List<CatalogDigest>(_toHash.Count);
        threads.ForEach(_toHash, file =>
        {
            if (HashOne(state, file, cancellationToken) is { } sha)
            {
                lock (digests)
                {
                    digests.Add(new CatalogDigest(file.Stamp, sha));
                }

                Interlocked.Increment(ref _hashed);
            }
        }, cancellationToken);
        return digests;
    }

    private static byte[]? HashOne(ScanState state, ScannedFile file, CancellationToken cancellationToken)
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
                // One read past the listed length tells a file that grew; one-shot hashing allocates no hash object.
                offset = state.Reader.ReadFull(handle, buffer.AsSpan(0, ReadSize), 0);
                sha = Sha256(buffer, (int)offset);
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
            return offset == file.Length && state.Reader.IsUnchanged(node, handle) ? sha : null;
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

    private static byte[] Sha256(byte[] buffer, int length)
    {
#if NET
        return SHA256.HashData(buffer.AsSpan(0, length));
#else
        using var sha = SHA256.Create();
        return sha.ComputeHash(buffer, 0, length);
#endif
    }

    /// <summary>A catalog group as a scan reports it, or <see langword="null"/> when all its files are this machine's (those are byte-verified locally).</summary>
    private DuplicateGroup? ToGroup(CatalogGroup group)
    {
        if (!group.SpansMachines)
        {
            return null;
        }

        // One entry per file (machine and identity), its names folded as hard links.
        var files = new List<DuplicateFile>();
        var folders = _folders ??= new Dictionary<string, AbsolutePath?>(StringComparer.Ordinal);
        foreach (var same in group.Files.GroupBy(file => (file.Machine, file.Stamp.Identity)))
        {
            var names = new List<AbsolutePath>();
            foreach (var match in same)
            {
                if (TryParse(match.Path.Span, folders) is { } path)
                {
                    names.Add(path);
                }
            }

            if (names.Count == 0)
            {
                continue;
            }

            names.Sort();
            var stamp = same.First().Stamp;
            files.Add(new DuplicateFile(names[0], names.GetRange(1, names.Count - 1), stamp.Identity, stamp.Length, names.Count, FileTable.ToDateTime(stamp.LastWriteTimeNs))
            {
                LastChangeTimeUtc = stamp.ChangeTimeNs == 0 ? DateTime.MinValue : FileTable.ToDateTime(stamp.ChangeTimeNs),
                Machine = same.Key.Machine,
            });
        }

        if (files.Count < 2 || files.All(file => file.Machine == machine))
        {
            return null;
        }

        files.Sort(static (a, b) =>
        {
            var byPath = a.Path.CompareTo(b.Path);
            return byPath != 0 ? byPath : string.CompareOrdinal(a.Machine, b.Machine);
        });

        // No roots: the files of other machines are not this machine's to act on (acting on a group without a root
        // holding its files is refused).
        return new DuplicateGroup(group.Length, files, verifiedByBytes: false) { Sha256 = group.Sha256 };
    }

    /// <summary>
    /// A path of some machine as this platform's path; <see langword="null"/> when it is not one (another platform's).
    /// Folders are parsed once and shared (a group read can hold every file of several machines).
    /// </summary>
    private static AbsolutePath? TryParse(ReadOnlySpan<byte> bytes, Dictionary<string, AbsolutePath?> folders)
    {
        var text = KernelNames.GetString(bytes);
        var slash = text.LastIndexOf(Path.DirectorySeparatorChar);
        if (slash < 0 || slash == text.Length - 1 || !Path.IsPathRooted(text))
        {
            return null; // e.g. a Windows path seen on Linux: Parse would resolve it against the current folder
        }

        var folderText = text.Substring(0, Math.Max(slash, 1)); // a file at the root: the folder "/"
        if (!folders.TryGetValue(folderText, out var folder))
        {
            try
            {
                folder = AbsolutePath.Parse(folderText);
            }
            catch (ArgumentException)
            {
                folder = null;
            }

            folders[folderText] = folder;
        }

        var name = text.Substring(slash + 1);
        return folder is null || name is "." or ".." ? null : folder.Child(name);
    }
}
