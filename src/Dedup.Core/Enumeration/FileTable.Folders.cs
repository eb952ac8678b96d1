using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

/// <summary>
/// The folder tree: the built-in enumerator numbers every listed folder when its listing starts, with its parent's
/// number (a parent's number is below its children's), so empty folders are known. Only when <see cref="TracksFolders"/>
/// is set (folder mode) are folders whose listing was not complete (an error, a skipped mount, a special file) marked and
/// symbolic links kept as links.
/// </summary>
internal sealed partial class FileTable
{
    // Parent numbers in chunks of 4,096 (16 KiB each): a list doubling to a million folders would leave its outgrown
    // arrays on the large-object heap until a full collection, a megabyte at the scan's peak.
    private const int ParentChunk = 4096;
    private readonly List<int[]> _parents = [];
    private int _parentCount;
    private readonly HashSet<int> _incomplete = [];
    private readonly List<FolderLink> _links = [];

    /// <summary>Whether every listed folder is registered with its parent (folder mode); set before enumeration.</summary>
    public bool TracksFolders { get; init; }

    /// <summary>The symbolic links listed (folder mode), as links: never followed.</summary>
    public IReadOnlyList<FolderLink> Links => _links;

    /// <summary>Registers a folder with its parent's number (-1 for a root); returns its number.</summary>
    public int AddFolder(AbsolutePath folder, int parent)
    {
        lock (_gate)
        {
            ThrowIfSealed();
            _folders.Add(folder);
            // Folders added without a parent (files of a custom enumerator) leave gaps: they are roots here.
            while (_parentCount < _folders.Count - 1)
            {
                AppendParent(-1);
            }

            AppendParent(parent);
            return _folders.Count - 1;
        }
    }

    /// <summary>The folder's parent number, or -1 for a root (or a folder registered without one).</summary>
    public int GetParent(int folder)
    {
        lock (_gate)
        {
            return folder < _parentCount ? _parents[folder / ParentChunk][folder % ParentChunk] : -1;
        }
    }

    private void AppendParent(int parent)
    {
        if (_parentCount % ParentChunk == 0)
        {
            _parents.Add(new int[ParentChunk]);
        }

        _parents[_parentCount / ParentChunk][_parentCount % ParentChunk] = parent;
        _parentCount++;
    }

    /// <summary>Marks a folder whose listing is not known to be complete: it cannot equal another folder.</summary>
    public void MarkIncomplete(int folder)
    {
        lock (_gate)
        {
            _incomplete.Add(folder);
        }
    }

    public bool IsIncomplete(int folder)
    {
        lock (_gate)
        {
            return _incomplete.Contains(folder);
        }
    }

    /// <summary>Records a symbolic link in a folder (its name and target text).</summary>
    public void AddLink(int folder, string name, string target)
    {
        lock (_gate)
        {
            _links.Add(new FolderLink(folder, name, target));
        }
    }
}

/// <summary>A symbolic link found in folder mode: compared as a link (name and target), never followed.</summary>
internal readonly record struct FolderLink(int Folder, string Name, string Target);
