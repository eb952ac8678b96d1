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
    private readonly List<int> _parents = [];
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
            while (_parents.Count < _folders.Count - 1)
            {
                _parents.Add(-1);
            }

            _parents.Add(parent);
            return _folders.Count - 1;
        }
    }

    /// <summary>The folder's parent number, or -1 for a root (or a folder registered without one).</summary>
    public int GetParent(int folder)
    {
        lock (_gate)
        {
            return folder < _parents.Count ? _parents[folder] : -1;
        }
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
