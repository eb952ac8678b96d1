using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Dedup.Core.Pooling;
using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

/// <summary>
/// The default <see cref="IFileEnumerator"/>: a shared stack of folders drained by a bounded number of
/// threads, with an interlocked count of folders still pending. Each folder's files are handed over as
/// one batch. Folders are identified by device and inode, so overlapping roots and symbolic-link loops
/// never visit a folder twice. Platform code lives in the <c>.Linux.cs</c>, <c>.Windows.cs</c> and <c>.Portable.cs</c> parts.
/// </summary>
internal sealed partial class ParallelFileEnumerator : IFileEnumerator, ITableSource
{
    public async IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(context);
        var channel = Channel.CreateUnbounded<List<ScannedFile>>(new UnboundedChannelOptions { SingleReader = true });
        var walk = new Walk(context, () => new BatchSink(context, channel.Writer), cancellationToken);
        var task = CompleteAsync(walk, channel.Writer);
        try
        {
            await foreach (var batch in channel.Reader.ReadAllAsync(cancellationToken).ConfigureAwait(false))
            {
                foreach (var file in batch)
                {
                    yield return file;
                }

                // One list per folder listed: pooled, so a walk of many folders reuses a few.
                ListPool<ScannedFile>.Shared.Return(batch);
            }
        }
        finally
        {
            walk.Stop();
            await task.ConfigureAwait(false);
        }

        static async Task CompleteAsync(Walk walk, ChannelWriter<List<ScannedFile>> writer) => writer.Complete(await walk.RunAsync().ConfigureAwait(false));
    }

    /// <summary>
    /// The scan's own path: the walk writes each file as a row of <paramref name="table"/> (names as the kernel's bytes on
    /// Linux), with no object per file; returns when every folder has been listed.
    /// </summary>
    public async Task FillAsync(FileEnumerationContext context, FileTable table, CancellationToken cancellationToken)
    {
        var walk = new Walk(context, () => new TableSink(table), cancellationToken);
        var failure = await walk.RunAsync().ConfigureAwait(false);
        if (failure is not null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(failure).Throw();
        }
    }

    /// <summary>A folder waiting to be listed.</summary>
    /// <param name="Path">Its path (below a followed link, the path through the link).</param>
    /// <param name="RelativePath">Its path relative to the root, for globs.</param>
    /// <param name="RootDevice">The root's device, or <see langword="null"/> for a root itself.</param>
    /// <param name="Ancestors">Identities of the enclosing folders, for loop detection.</param>
    /// <param name="ViaSymlink">Whether it was reached through a symbolic link.</param>
    private sealed record DirectoryWork(AbsolutePath Path, string RelativePath, ulong? RootDevice, FolderChain? Ancestors, bool ViaSymlink)
    {
        /// <summary>Its number in the file table, given when its first file is added (folder mode: when its listing starts); -1 until then.</summary>
        public int Folder { get; set; } = -1;

        /// <summary>The enclosing folder's number in the file table (folder mode), or -1.</summary>
        public int ParentFolder { get; init; } = -1;

        /// <summary>
        /// Linux: the descriptor of the folder whose listing queued this one, kept open until this one is opened by its
        /// name relative to it (one path component, not a walk of the whole path); <see langword="null"/> for a root, or
        /// when the walk already holds <see cref="FileSystem.SharedFolder.MaxHeld"/> of them.
        /// </summary>
        public FileSystem.SharedFolder? OpenedFrom { get; set; }

        /// <summary>Linux: this folder's own descriptor while it is being listed, lent to the sub-folders it queues.</summary>
        public FileSystem.SharedFolder? Listing { get; set; }

        /// <summary>
        /// A root that is a file (Linux): its folder is opened as a root's would be, and only this name in it is looked
        /// at, as the walk looks at an entry; nothing else in the folder is listed, and the folder is not marked visited.
        /// </summary>
        public string? OnlyName { get; init; }
    }

    private sealed record FolderChain(FileIdentity Identity, FolderChain? Parent)
    {
        public bool Contains(FileIdentity identity)
        {
            for (var node = this; node is not null; node = node.Parent)
            {
                if (node.Identity == identity)
                {
                    return true;
                }
            }

            return false;
        }
    }

    private sealed partial class Walk(FileEnumerationContext context, Func<EntrySink> createSink, CancellationToken cancellationToken)
    {
        private readonly ConcurrentStack<DirectoryWork> _stack = new();
        private readonly SemaphoreSlim _signal = new(0);
        private readonly ConcurrentDictionary<FileIdentity, byte> _visited = new();

        // Every folder is remembered only where one can be reached twice: several roots (one may hold another) or
        // followed links. One root without followed links meets a folder again only through a bind mount; one that
        // loops is caught by the chain of enclosing folders, one that does not lists the same files under a second
        // path (folded as names of one file). The set cost ~60 bytes per folder (14 MiB for 244k folders).
        private readonly bool _rememberFolders = context.Roots.Count > 1 || context.FollowSymbolicLinks;
        private readonly int _workers = Math.Max(1, context.MaxDegreeOfParallelism);
        private readonly FileSystem.SharedFolder.Counter _heldFolders = new();

        // At most 256, and an eighth of the open-file limit: the walk's descriptors must leave room for the scan's reads.
        private readonly int _maxHeldFolders = Math.Min(FileSystem.SharedFolder.MaxHeld, Interop.OpenFileLimit.Current / 8);
        private int _pending;
        private volatile bool _done;

        /// <summary>Starts the workers and returns once all have stopped (with the walk's failure, if any), without blocking a thread meanwhile.</summary>
        public async Task<Exception?> RunAsync()
        {
            Exception? failure = null;
            Task? all = null;
            try
            {
                foreach (var root in context.Roots)
                {
                    Push(OperatingSystem.IsLinux() ? RootWork(root) : new DirectoryWork(root, string.Empty, null, null, false));
                }

                var threads = new Task[_workers];
                for (var i = 0; i < threads.Length; i++)
                {
                    threads[i] = Task.Factory.StartNew(Work, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
                }

                // Without a token: every worker has stopped by the time the channel completes. Awaited, not waited:
                // a thread-pool worker blocked for the whole walk starved the host (#13).
                all = Task.WhenAll(threads);
                await all.ConfigureAwait(false);
            }
            catch (Exception ex)
            {
                var inner = all?.Exception?.InnerExceptions;
                failure = inner?.FirstOrDefault(e => e is not OperationCanceledException) ?? inner?.FirstOrDefault() ?? ex;
            }
            finally
            {
                // Folders left queued (the walk was cancelled or stopped) give back their parents' descriptors.
                while (_stack.TryPop(out var left))
                {
                    left.OpenedFrom?.Release();
                }
            }

            return failure;
        }

        /// <summary>Ends the walk early (the consumer left); workers finish their current folder.</summary>
        public void Stop()
        {
            _done = true;
            _signal.Release(_workers);
        }

        /// <summary>Queues a sub-folder of <paramref name="parent"/>, remembering the parent's number (folder mode).</summary>
        private void PushSubfolder(DirectoryWork parent, DirectoryWork child) => Push(child with { ParentFolder = parent.Folder });

        private void Push(DirectoryWork work)
        {
            Interlocked.Increment(ref _pending);
            _stack.Push(work);
            _signal.Release();
        }

        private void Work()
        {
            var sink = createSink();
            try
            {
                while (true)
                {
                    _signal.Wait(cancellationToken);
                    if (_done)
                    {
                        return;
                    }

                    if (_stack.TryPop(out var work))
                    {
                        ListFolder(work, sink);
                    }
                }
            }
            finally
            {
                sink.Complete();
            }
        }

        private void ListFolder(DirectoryWork work, EntrySink sink)
        {
            try
            {
                sink.BeginFolder(work);
                if (OperatingSystem.IsLinux())
                {
                    ListLinux(work, sink);
                }
                else if (OperatingSystem.IsWindows())
                {
                    ListWindows(work, sink);
                }
                else
                {
                    ListPortable(work, sink);
                }

                sink.EndFolder();
            }
            finally
            {
                work.OpenedFrom?.Release(); // not opened (the sink failed first): the parent's descriptor is given back
                work.OpenedFrom = null;
                if (Interlocked.Decrement(ref _pending) == 0)
                {
                    _done = true;
                    _signal.Release(_workers);
                }
            }
        }

        private static string Combine(string relative, ReadOnlySpan<char> name) =>
            relative.Length == 0 ? name.ToString() : string.Concat(relative, "/", name);

        /// <summary>Marks a folder visited; false (and a loop report if it encloses itself) when seen before.</summary>
        private bool TryVisit(DirectoryWork work, FileIdentity identity)
        {
            if (!_rememberFolders)
            {
                return !(work.Ancestors?.Contains(identity) ?? false);
            }

            if (_visited.TryAdd(identity, 0))
            {
                return true;
            }

            if (work.ViaSymlink && (work.Ancestors?.Contains(identity) ?? false))
            {
                context.ReportError(work.Path.ToString(), Reporting.ScanErrorKind.SymbolicLinkLoop, "Symbolic link loop: the link leads back to an enclosing folder; not followed");
            }

            return false;
        }
    }
}
