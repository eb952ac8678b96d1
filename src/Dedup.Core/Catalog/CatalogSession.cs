using System.Threading.Channels;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;

namespace Dedup.Core.Catalog;

/// <summary>
/// One scan's use of its <see cref="FileCatalog"/>: at the size barrier every row of the table goes to the catalog
/// (streamed on its own connection while the compare stage runs), and the stamps already digested and the sizes of
/// other machines are fetched, which tell the files that need a SHA-256. The compare stage's whole-file reads give the
/// SHA-256s of the files they read (<see cref="CatalogHasher"/>); files of a size only another machine shares are read
/// and hashed beside it, those the compare did not read whole after it; the scan's groups that span machines are
/// reported after its own. A failure ends the catalog's part only.
/// </summary>
/// <remarks>
/// The digests go to the catalog as they are made and checked, in the same call as the rows
/// (<see cref="FileCatalog.ReplaceFilesAndRecordDigestsAsync"/>), so the catalog stores them while the compare stage
/// runs, not in one statement after it (measured at 250k files: 1.7–3.5 s alone after the comparison, #19 session 12).
/// </remarks>
internal sealed class CatalogSession(FileCatalog catalog, string machine, Action<string>? log)
{
    private readonly CatalogHasher _hasher = new();
    private CatalogRows? _rows;
    private Task<long>? _replace;
    private readonly Channel<CatalogDigest> _digests = Channel.CreateUnbounded<CatalogDigest>(new UnboundedChannelOptions { SingleReader = true });
    private IReadOnlyCollection<FileStamp> _known = [];
    private IReadOnlyCollection<long> _uniqueShared = [];
    private Exception? _error;
    private long _recorded;
    private long _hashed;
    private int _groups;
    private Dictionary<ReadOnlyMemory<byte>, AbsolutePath?>? _folders;

    public string Machine => machine;

    /// <summary>Given to the scan's reader: hashes the bytes the compare stage reads.</summary>
    public IReadObserver Observer => _hasher;

    public CatalogStatistics Statistics => new()
    {
        Machine = machine,
        FilesRecorded = Volatile.Read(ref _recorded),
        FilesHashed = Volatile.Read(ref _hashed),
        GroupsAcrossMachines = Volatile.Read(ref _groups),
        Error = Volatile.Read(ref _error),
    };

    /// <summary>
    /// At the size barrier: starts handing every row to the catalog (not awaited: the compare stage runs meanwhile) and
    /// waits only for the two small answers that say which files need a SHA-256, so the compare stage's reads hash
    /// exactly those.
    /// </summary>
    public async Task ReplaceAsync(ScanContext context, FileTable table, CancellationToken cancellationToken)
    {
        var rows = CatalogRows.Take(table);
        _rows = rows;
        // Its own task: the rows are made as the server takes them, off the barrier's thread; the digests follow them
        // as the scan makes them, until FinishAsync ends the channel.
        _replace = Task.Run(
            () => catalog.ReplaceFilesAndRecordDigestsAsync(machine, rows.Rows(), _digests.Reader.ReadAllAsync(cancellationToken), cancellationToken),
            cancellationToken);
        try
        {
            var known = catalog.GetDigestedFilesAsync(machine, cancellationToken);
            var uniqueSizes = rows.UniqueSizes();
            var uniqueShared = uniqueSizes.Count == 0
                ? Task.FromResult<IReadOnlyCollection<long>>([])
                : catalog.GetSizesOnOtherMachinesAsync(machine, uniqueSizes, cancellationToken);
            await Task.WhenAll(known, uniqueShared).ConfigureAwait(false);
            (_known, _uniqueShared) = (known.Result, uniqueShared.Result);
            _hasher.Start(_known, context, HandOn);
        }
        catch (Exception error) when (error is not OperationCanceledException)
        {
            Fail(error, cancellationToken);
        }
    }

    /// <summary>
    /// Hashes the files of a size only another machine shares (beside the compare stage), then, once
    /// <paramref name="compare"/> ended, those it did not read whole; records the digests once the rows are in and
    /// returns the groups that span machines (none after a failure).
    /// </summary>
    /// <remarks>
    /// The hashing blocks on reads: it runs on the scan's <paramref name="threads"/> beside the compare stage, never on
    /// the host's thread pool (#13); only the catalog's own awaits leave them.
    /// </remarks>
    public async Task<IReadOnlyList<DuplicateGroup>> FinishAsync(ScanContext context, ScanThreads threads, Task compare, CancellationToken cancellationToken)
    {
        try
        {
            if (Volatile.Read(ref _error) is not null || _replace is null || _rows is not { } rows)
            {
                _digests.Writer.TryComplete();
                await WaitQuietlyAsync(_replace).ConfigureAwait(false);
                return [];
            }

            var unique = rows.ToHash(_known, _uniqueShared, readWhole: null);
            await threads.RunAsync(() => Hash(context, threads, unique, cancellationToken)).ConfigureAwait(false);

            // Its failure is the scan's, observed by the scan: here only its end matters.
            await Task.WhenAny(compare).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
            var leftovers = rows.ToHash(_known, uniqueShared: null, _hasher.TakeReadWhole());
            if (context.Errors.Count > 0)
            {
                // A file the compare stage could not read is reported once: the catalog does not try it again.
                var failed = new HashSet<string>(context.Errors.ToArray().Select(error => error.Path), StringComparer.Ordinal);
                leftovers.RemoveAll(file => failed.Contains(file.Path.ToString()));
            }

            await threads.RunAsync(() => Hash(context, threads, leftovers, cancellationToken)).ConfigureAwait(false);
            _known = [];
            _rows = null;

            _digests.Writer.TryComplete();
            await _replace.ConfigureAwait(false);
            Volatile.Write(ref _recorded, rows.Recorded);

            // A row the catalog cannot use (a hand-edited catalog) is named and left out: an error of the scan (no path:
            // the rows are the catalog's), which goes on with the other machines' groups.
            var found = await catalog.FindGroupsAcrossMachinesAsync(
                machine, message => context.Errors.Report(string.Empty, ScanErrorKind.IOError, message), cancellationToken).ConfigureAwait(false);
            var groups = new List<DuplicateGroup>();
            foreach (var group in found)
            {
                if (ToGroup(group, rows) is { } spanning)
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
            _digests.Writer.TryComplete();
            await WaitQuietlyAsync(_replace).ConfigureAwait(false);
            Fail(error, cancellationToken);
            return [];
        }
        finally
        {
            // A cancellation: the catalog's call ends too (rolled back), whatever it waits on.
            _digests.Writer.TryComplete();
        }
    }

    /// <summary>A checked digest, to the catalog's call (stored while the scan goes on).</summary>
    private void HandOn(CatalogDigest digest)
    {
        _digests.Writer.TryWrite(digest);
        Interlocked.Increment(ref _hashed);
    }

    /// <summary>Notes why the catalog cannot be used; a failure caused by the scan's cancellation is the cancellation.</summary>
    private void Fail(Exception error, CancellationToken cancellationToken)
    {
        _hasher.Stop();
        _digests.Writer.TryComplete();
        if (cancellationToken.IsCancellationRequested)
        {
            throw new OperationCanceledException("The scan was cancelled.", error, cancellationToken);
        }

        Volatile.Write(ref _error, error);
        log?.Invoke($"The file catalog could not be used; only this machine's groups are reported: {error.Message}");
    }

    private static async Task WaitQuietlyAsync(Task? task)
    {
        if (task is not null)
        {
            try
            {
                await task.ConfigureAwait(false);
            }
            catch (Exception)
            {
                // The catalog had already failed: this is the same failure, or a cancellation.
            }
        }
    }

    /// <summary>SHA-256 of each whole file, on the scan's degree of parallelism; a file that changed meanwhile gets none.</summary>
    private void Hash(ScanContext context, ScanThreads threads, List<ScannedFile> files, CancellationToken cancellationToken)
    {
        threads.ForEach(files, file =>
        {
            if (CatalogHasher.HashOne(context, file, cancellationToken) is { } sha)
            {
                HandOn(new CatalogDigest(file.Stamp, sha));
            }
        }, cancellationToken);
    }

    /// <summary>A catalog group as a scan reports it, or <see langword="null"/> when all its files are this machine's (those are byte-verified locally).</summary>
    /// <remarks>
    /// One pass over the files (sorted by machine, then path), no LINQ: a fleet's group read holds a group for nearly
    /// every file. Names of one file (machine and identity) are folded as hard links; this machine's files are named from
    /// the scan's own rows, not from the paths the catalog sends (it need send none).
    /// </remarks>
    private DuplicateGroup? ToGroup(CatalogGroup group, CatalogRows rows)
    {
        var matches = group.Files;
        var others = false;
        for (var i = 0; i < matches.Count && !others; i++)
        {
            others = !string.Equals(matches[i].Machine, machine, StringComparison.Ordinal);
        }

        if (!others || matches.Count < 2)
        {
            return null;
        }

        var folders = _folders ??= new Dictionary<ReadOnlyMemory<byte>, AbsolutePath?>(SameBytes.Instance);
        // This machine's identities in the group: one in most groups, so a set only from the second on (a set kept
        // across groups would clear its largest group's buckets for every group after it).
        HashSet<FileIdentity>? own = null;
        FileIdentity? firstOwn = null;
        var files = new List<(CatalogMatch First, List<AbsolutePath> Names)>(matches.Count);
        foreach (var match in matches)
        {
            if (string.Equals(match.Machine, machine, StringComparison.Ordinal))
            {
                // This scan's own file: named from its listing by the whole stamp (the catalog need not send the paths
                // it has from this scan), once per identity whatever the catalog sent.
                var identity = match.Stamp.Identity;
                bool fresh;
                if (firstOwn is not { } seen)
                {
                    (firstOwn, fresh) = (identity, true);
                }
                else
                {
                    fresh = (own ??= [seen]).Add(identity);
                }

                if (fresh && rows.NamesOf(match.Stamp) is { Count: > 0 } names)
                {
                    files.Add((match, names));
                }

                continue;
            }

            if (TryParse(match.Path, folders) is not { } path)
            {
                continue;
            }

            var same = -1;
            for (var k = files.Count - 1; k >= 0 && same < 0 && string.Equals(files[k].First.Machine, match.Machine, StringComparison.Ordinal); k--)
            {
                same = files[k].First.Stamp.Identity == match.Stamp.Identity ? k : -1;
            }

            if (same >= 0)
            {
                files[same].Names.Add(path);
            }
            else
            {
                files.Add((match, [path]));
            }
        }

        var reported = new List<DuplicateFile>(files.Count);
        var ownOnly = true;
        foreach (var (first, names) in files)
        {
            names.Sort();
            var stamp = first.Stamp;
            reported.Add(new DuplicateFile(names[0], names.GetRange(1, names.Count - 1), stamp.Identity, stamp.Length, names.Count, FileTable.ToDateTime(stamp.LastWriteTimeNs))
            {
                LastChangeTimeUtc = stamp.ChangeTimeNs == 0 ? DateTime.MinValue : FileTable.ToDateTime(stamp.ChangeTimeNs),
                Machine = first.Machine,
            });
            ownOnly &= string.Equals(first.Machine, machine, StringComparison.Ordinal);
        }

        if (reported.Count < 2 || ownOnly)
        {
            return null;
        }

        reported.Sort(static (a, b) =>
        {
            var byPath = a.Path.CompareTo(b.Path);
            return byPath != 0 ? byPath : string.CompareOrdinal(a.Machine, b.Machine);
        });

        // No roots: the files of other machines are not this machine's to act on (acting on a group without a root
        // holding its files is refused).
        return new DuplicateGroup(group.Length, reported, verifiedByBytes: false) { Sha256 = group.Sha256 };
    }

    /// <summary>
    /// A path of some machine as this platform's path; <see langword="null"/> when it is not one (another platform's).
    /// Folders are parsed once and shared (a group read can hold every file of several machines).
    /// </summary>
    /// <remarks>
    /// Split at the last separator byte and looked up by the folder's bytes: only a folder seen for the first time is
    /// turned into text, and per file only its name is (measured in a fleet scan of 250k files matched on another
    /// machine: the whole path's text and the folder's substring per file were a third of the groups' making). A
    /// separator byte is always the separator character and the names' text is made byte by byte (UTF-8 sequences and
    /// escaped bytes never span a separator), so the parts are those the whole path's text splits into.
    /// </remarks>
    private static AbsolutePath? TryParse(ReadOnlyMemory<byte> path, Dictionary<ReadOnlyMemory<byte>, AbsolutePath?> folders)
    {
        var bytes = path.Span;
        var slash = bytes.LastIndexOf((byte)Path.DirectorySeparatorChar);
        if (slash < 0 || slash == bytes.Length - 1)
        {
            return null; // e.g. a Windows path seen on Linux: Parse would resolve it against the current folder
        }

        var folderBytes = path.Slice(0, Math.Max(slash, 1)); // a file at the root: the folder "/"
        if (!folders.TryGetValue(folderBytes, out var folder))
        {
            var folderText = KernelNames.GetString(folderBytes.Span);
            folder = null;
            if (Path.IsPathRooted(folderText))
            {
                try
                {
                    folder = AbsolutePath.Parse(folderText);
                }
                catch (ArgumentException)
                {
                    folder = null;
                }
            }

            folders[folderBytes] = folder;
        }

        if (folder is null)
        {
            return null;
        }

        var name = KernelNames.GetString(bytes.Slice(slash + 1));
        return name is "." or ".." ? null : folder.Child(name);
    }

    /// <summary>Byte strings compared by content.</summary>
    private sealed class SameBytes : IEqualityComparer<ReadOnlyMemory<byte>>
    {
        public static readonly SameBytes Instance = new();

        public bool Equals(ReadOnlyMemory<byte> x, ReadOnlyMemory<byte> y) => x.Span.SequenceEqual(y.Span);

        public int GetHashCode(ReadOnlyMemory<byte> obj)
        {
#if NET
            var hash = new HashCode();
            hash.AddBytes(obj.Span);
            return hash.ToHashCode();
#else
            // FNV-1a
            var hash = 2166136261u;
            foreach (var b in obj.Span)
            {
                hash = unchecked((hash ^ b) * 16777619u);
            }

            return unchecked((int)hash);
#endif
        }
    }
}
