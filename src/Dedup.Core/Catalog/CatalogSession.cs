using System.Threading.Channels;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;

namespace Dedup.Core.Catalog;

/// <summary>
/// One scan's use of its <see cref="FileCatalog"/>: at the size barrier every row of the table goes to the catalog
/// (streamed on its own connection while the compare stage runs), and the stamps already digested and the sizes of
/// other machines are fetched, which tell the files that need a SHA-256. The compare stage's whole-file reads give the
/// SHA-256s of the files they read (<see cref="CatalogHasher"/>); files of a size only another machine shares are read
/// and hashed beside it, those the compare did not read whole after it; the scan's groups that span machines are
/// reported after its own, one group per content: the scan's own groups of a size another machine holds are held back
/// and reported with the other machines' files of their content (<see cref="CatalogGroupJoin"/>). Once its files and
/// digests are stored, the scan tells the catalog which of its sizes it left without a digest and learns which of its
/// files may match files other machines have not hashed yet (<see cref="FileCatalog.ExchangeDigestRequestsAsync"/>).
/// A failure ends the catalog's part only: the held groups are reported as they are.
/// </summary>
/// <remarks>
/// The digests go to the catalog as they are made and checked, in the same call as the rows
/// (<see cref="FileCatalog.ReplaceFilesAndRecordDigestsAsync"/>), so the catalog stores them while the compare stage
/// runs, not in one statement after it (measured at 250k files: 1.7–3.5 s alone after the comparison, #19 session 12).
/// </remarks>
internal sealed partial class CatalogSession(FileCatalog catalog, string machine, Action<string>? log)
{
    private readonly CatalogHasher _hasher = new();
    private CatalogRows? _rows;
    private Task<long>? _replace;
    private readonly Channel<CatalogDigest> _digests = Channel.CreateUnbounded<CatalogDigest>(new UnboundedChannelOptions { SingleReader = true });
    private IReadOnlyCollection<FileStamp> _known = [];
    private IReadOnlyCollection<long> _uniqueShared = [];
    private HashSet<long>? _otherSizes;
    private Exception? _error;
    private long _recorded;
    private long _hashed;
    private CatalogGroupJoin? _join;

    // Asked as the scan starts (Start): the stamps with a stored digest, and a rescan's groups of those files (null for a
    // first scan); on a rescan, the digests it makes, whose groups are read once they are stored (CatalogGroupMerge).
    private Task<IReadOnlyList<CatalogGroup>?>? _early;
    private bool _rescan;
    private Task<IReadOnlyCollection<FileStamp>>? _knownTask;
    private readonly List<CatalogDigest> _made = [];
    private readonly HashSet<string> _skipped = new(StringComparer.Ordinal);
    private IReadOnlyDictionary<string, long> _pending = new Dictionary<string, long>();
    private long _hashedOnRequest;

    // The machine's files by content, when the catalog gave its stored digests (GetDigestsAsync): the scan then names its
    // own files in the groups itself and reads only the other machines' files. Set before the barrier, read after it.
    private readonly CatalogOwnFiles _own = new();
    private bool _byContent;

    // The scan's groups held back until the catalog's groups are read (under their own lock); none once taken.
    private readonly List<DuplicateGroup> _held = [];
    private bool _holding;

    // The sizes of the files of a size only another machine holds that were hashed (one file each).
    private readonly List<long> _hashedUnique = [];

    public string Machine => machine;

    /// <summary>Given to the scan's reader: hashes the bytes the compare stage reads.</summary>
    public IReadObserver Observer => _hasher;

    public CatalogStatistics Statistics => new()
    {
        Machine = machine,
        FilesRecorded = Volatile.Read(ref _recorded),
        FilesHashed = Volatile.Read(ref _hashed),
        GroupsAcrossMachines = Volatile.Read(ref _join)?.AcrossMachines ?? 0,
        PendingMatches = Volatile.Read(ref _pending),
        FilesHashedOnRequest = Volatile.Read(ref _hashedOnRequest),
        Error = Volatile.Read(ref _error),
    };

    /// <summary>
    /// Takes a group of the scan to report it with the catalog's files of the same content, when another machine holds
    /// its size (as of the barrier) and the catalog is still in use; <see langword="false"/>: publish it now.
    /// </summary>
    public bool Hold(DuplicateGroup group)
    {
        if (group.Match != ContentMatch.WholeFile || Volatile.Read(ref _otherSizes) is not { } others || !others.Contains(group.Size))
        {
            return false;
        }

        lock (_held)
        {
            if (!_holding)
            {
                return false;
            }

            _held.Add(group);
            return true;
        }
    }

    /// <summary>
    /// As the scan starts: asks for the stamps the machine's files had when their digests were stored, and on a rescan
    /// (some are) reads the groups of those files, neither of which needs the listing. Measured at 250k files matched on
    /// another machine: the stamps were 0.2 s at the barrier, every scan thread waiting; the groups' read, started at the
    /// barrier, competed with the comparison for the CPU, while the listing leaves some of it idle.
    /// </summary>
    public void Start(ScanContext context, CancellationToken cancellationToken)
    {
        var known = KnownAsync(cancellationToken);
        _knownTask = known;
        _early = ReadEarlyAsync(context, known, cancellationToken);
    }

    /// <summary>The scan ended: a query it never awaited (a scan failed or cancelled before its barrier) is observed.</summary>
    public void Dispose()
    {
        foreach (Task? task in new Task?[] { _knownTask, _early })
        {
            task?.ContinueWith(static task => _ = task.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }
    }

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
            var known = _knownTask ?? throw new InvalidOperationException("The catalog's session was not started.");
            // Every size, not only the unique ones: a group of a size another machine holds may hold its files too.
            var sizes = rows.DistinctSizes();
            var otherSizes = sizes.Count == 0
                ? Task.FromResult<IReadOnlyCollection<long>>([])
                : catalog.GetSizesOnOtherMachinesAsync(machine, sizes, cancellationToken);
            await Task.WhenAll(known, otherSizes).ConfigureAwait(false);
            var others = new HashSet<long>(otherSizes.Result);
            _known = known.Result;
            _uniqueShared = rows.UniqueSizes().FindAll(others.Contains);
            // A rescan: its unchanged files' groups are being read (Start); those of the contents it hashes are read once
            // they are stored.
            _rescan = _known.Count > 0;

            lock (_held)
            {
                _holding = true;
            }

            Volatile.Write(ref _otherSizes, others);
            _hasher.Start(_known, context, HandOn);
        }
        catch (Exception error) when (error is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            Fail(error, cancellationToken);
        }
    }

    /// <summary>
    /// Hashes the files of a size only another machine shares (beside the compare stage), then, once
    /// <paramref name="compare"/> ended, those it did not read whole; records the digests once the rows are in,
    /// exchanges digest requests, and returns the scan's groups it held, joined with the catalog's files of their content,
    /// then the catalog's other groups that span machines (after a failure, the held groups as they were found).
    /// </summary>
    /// <remarks>
    /// The hashing blocks on reads: it runs on the scan's <paramref name="threads"/> beside the compare stage, never on
    /// the host's thread pool (#13); only the catalog's own awaits leave them.
    /// </remarks>
    public async Task<IEnumerable<DuplicateGroup>> FinishAsync(ScanContext context, ScanThreads threads, Task compare, CancellationToken cancellationToken)
    {
        Task<CatalogDigestRequests>? exchange = null;
        Task? prepared = null;
        List<DuplicateGroup>? held = null;
        try
        {
            if (Volatile.Read(ref _error) is not null || _replace is null || _rows is not { } rows)
            {
                _digests.Writer.TryComplete();
                await WaitQuietlyAsync(_replace).ConfigureAwait(false);
                await WaitQuietlyAsync(_early).ConfigureAwait(false);
                await Task.WhenAny(compare).ConfigureAwait(false);
                return TakeHeld();
            }

            var unique = rows.ToHash(_known, _uniqueShared, readWhole: null);
            await threads.RunAsync(() => Hash(context, threads, unique, cancellationToken, _hashedUnique)).ConfigureAwait(false);

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

            await threads.RunAsync(() => Hash(context, threads, leftovers, cancellationToken, null)).ConfigureAwait(false);
            var undigested = rows.UndigestedSizes(_known, _otherSizes!);
            var kept = _known;
            _known = [];
            _rows = null;

            _digests.Writer.TryComplete();
            await _replace.ConfigureAwait(false);
            Volatile.Write(ref _recorded, rows.Recorded);

            // Beside the group read (its own connection): which of this scan's files wait on other machines' digests; and
            // the join's indexes, made while the server reads (the compare stage ended: no group is held any more).
            exchange = catalog.ExchangeDigestRequestsAsync(machine, undigested, cancellationToken);
            held = TakeHeld();
            var join = new CatalogGroupJoin(machine, rows, held, context.Options.MaxDegreeOfParallelism, _byContent ? _own : null);
            prepared = Task.Run(join.Prepare, CancellationToken.None);
            var found = await FindGroupsAsync(context, rows, kept, prepared, cancellationToken).ConfigureAwait(false);
            var requests = await exchange.ConfigureAwait(false);
            NoteRequests(requests, rows);
            await prepared.ConfigureAwait(false);

            Volatile.Write(ref _join, join);
            return join.Join(found);
        }
        catch (Exception error) when (error is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            _digests.Writer.TryComplete();
            await WaitQuietlyAsync(_replace).ConfigureAwait(false);
            await WaitQuietlyAsync(exchange).ConfigureAwait(false);
            await WaitQuietlyAsync(prepared).ConfigureAwait(false);
            await WaitQuietlyAsync(_early).ConfigureAwait(false);
            Fail(error, cancellationToken);
            // The scan's own groups held back are reported as they are, once the compare stage can hold no more.
            await Task.WhenAny(compare).ConfigureAwait(false);
            return held ?? TakeHeld();
        }
        finally
        {
            // A cancellation: the catalog's call ends too (rolled back), whatever it waits on.
            _digests.Writer.TryComplete();
        }
    }

    /// <summary>The groups held back; none is held from now on.</summary>
    private List<DuplicateGroup> TakeHeld()
    {
        lock (_held)
        {
            _holding = false;
            var held = new List<DuplicateGroup>(_held);
            _held.Clear();
            return held;
        }
    }

    /// <summary>Counts this scan's files waiting on each other machine's digests, and the files it hashed because others asked.</summary>
    private void NoteRequests(CatalogDigestRequests requests, CatalogRows rows)
    {
        var pending = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (var (other, sizes) in requests.Pending)
        {
            if (rows.CountFiles(sizes) is > 0 and var files)
            {
                pending[other] = files;
            }
        }

        Volatile.Write(ref _pending, pending);
        if (requests.AskedOfThisMachine.Count > 0)
        {
            var asked = new HashSet<long>(requests.AskedOfThisMachine);
            Volatile.Write(ref _hashedOnRequest, _hashedUnique.Count(asked.Contains));
        }
    }

    /// <summary>A checked digest, to the catalog's call (stored while the scan goes on).</summary>
    private void HandOn(CatalogDigest digest)
    {
        _digests.Writer.TryWrite(digest);
        if (_byContent)
        {
            _own.AddMade(digest);
        }

        if (_rescan)
        {
            lock (_made)
            {
                _made.Add(digest);
            }
        }

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
    /// <param name="context">The scan.</param>
    /// <param name="threads">The scan's threads.</param>
    /// <param name="files">The files to hash.</param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <param name="hashedSizes">Given: gets the size of each file hashed.</param>
    private void Hash(ScanContext context, ScanThreads threads, List<ScannedFile> files, CancellationToken cancellationToken, List<long>? hashedSizes)
    {
        threads.ForEach(files, file =>
        {
            if (CatalogHasher.HashOne(context, file, cancellationToken) is { } sha)
            {
                HandOn(new CatalogDigest(file.Stamp, sha));
                if (hashedSizes is not null)
                {
                    lock (hashedSizes)
                    {
                        hashedSizes.Add(file.Length);
                    }
                }
            }
        }, cancellationToken);
    }
}
