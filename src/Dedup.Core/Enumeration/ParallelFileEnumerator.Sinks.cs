using System.Threading.Channels;
using Dedup.Core.Paths;
using Dedup.Core.Pooling;

namespace Dedup.Core.Enumeration;

internal sealed partial class ParallelFileEnumerator
{
    /// <summary>Where one walk thread puts the files it lists: rows of the scan's table, or <see cref="ScannedFile"/> batches.</summary>
    private abstract class EntrySink
    {
        /// <summary>A file named by the kernel's bytes (Linux); <paramref name="row"/> has everything but folder and name.</summary>
        public abstract void Add(DirectoryWork work, ReadOnlySpan<byte> name, in FileRow row);

        /// <summary>A file listed through the platform's APIs (Windows, other platforms).</summary>
        public abstract void Add(DirectoryWork work, ScannedFile file);

        /// <summary>The folder being listed is done.</summary>
        public abstract void EndFolder();

        /// <summary>The thread is done.</summary>
        public abstract void Complete();

        /// <summary>Whether the folder tree is kept (folder mode): folders, links and incomplete listings are recorded.</summary>
        public virtual bool TracksFolders => false;

        /// <summary>Files of at most this many bytes are read and keyed while listed (see <see cref="FileTable.KeyedLength"/>); 0: none.</summary>
        public virtual int KeyedLength => 0;

        /// <summary>A folder's listing starts (the table's sink numbers it now, with its parent, even if it stays empty).</summary>
        public virtual void BeginFolder(DirectoryWork work)
        {
        }

        /// <summary>The folder's listing is not complete (an error, a skipped entry): it cannot equal another folder.</summary>
        public virtual void MarkIncomplete(DirectoryWork work)
        {
        }

        /// <summary>A symbolic link in the folder, kept as a link (folder mode).</summary>
        public virtual void AddLink(DirectoryWork work, string name, string target)
        {
        }
    }

    /// <summary>Writes rows into the scan's <see cref="FileTable"/>: the kernel's name bytes are copied, never decoded.</summary>
    private sealed class TableSink(FileTable table) : EntrySink
    {
        private readonly FileTable.Writer _writer = table.CreateWriter();

        public override void Add(DirectoryWork work, ReadOnlySpan<byte> name, in FileRow row) => _writer.Add(FolderOf(work), name, row);

        public override void Add(DirectoryWork work, ScannedFile file) => _writer.Add(FolderOf(work), file.Path.Name, file.ToRow());

        public override void EndFolder() => _writer.EndFolder();

        public override void Complete() => _writer.Complete();

        public override bool TracksFolders => table.TracksFolders;

        public override int KeyedLength => table.KeysWhileListing ? table.KeyedLength : 0;

        // Every listed folder is numbered with its parent, files or not: folder mode needs the tree, and the reader's
        // folder descriptors are chosen by the files below each folder (IO.BusiestFolders).
        public override void BeginFolder(DirectoryWork work)
        {
            if (work.Folder < 0)
            {
                work.Folder = table.AddFolder(work.Path, work.ParentFolder);
            }
        }

        public override void MarkIncomplete(DirectoryWork work)
        {
            if (table.TracksFolders)
            {
                table.MarkIncomplete(FolderOf(work));
            }
        }

        public override void AddLink(DirectoryWork work, string name, string target)
        {
            if (table.TracksFolders)
            {
                table.AddLink(FolderOf(work), name, target);
            }
        }

        // Only the thread listing a folder adds its files, so the number is given once, without a lock on the work item.
        private int FolderOf(DirectoryWork work) => work.Folder >= 0 ? work.Folder : work.Folder = table.AddFolder(work.Path);
    }

    /// <summary>Hands each folder's files over as one pooled batch of <see cref="ScannedFile"/>s (the <see cref="IFileEnumerator"/> contract).</summary>
    private sealed class BatchSink(FileEnumerationContext context, ChannelWriter<List<ScannedFile>> writer) : EntrySink
    {
        private List<ScannedFile> _batch = ListPool<ScannedFile>.Shared.Rent();

        public override void Add(DirectoryWork work, ReadOnlySpan<byte> name, in FileRow row) =>
            _batch.Add(new ScannedFile(row, work.Path.ChildFile(KernelNames.GetString(name).AsSpan(), context.Names)));

        public override void Add(DirectoryWork work, ScannedFile file) => _batch.Add(file);

        public override void EndFolder()
        {
            if (_batch.Count > 0)
            {
                writer.TryWrite(_batch);
                _batch = ListPool<ScannedFile>.Shared.Rent();
            }
        }

        public override void Complete() => ListPool<ScannedFile>.Shared.Return(_batch);
    }
}
