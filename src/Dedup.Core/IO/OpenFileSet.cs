namespace Dedup.Core.IO;

/// <summary>
/// The open files of one comparison set, by index: the one place a set keeps files open between reads. A file is
/// put here by the read that opened it (a probe's or a whole read's, kept for the strategy to read on or for the last
/// check) or opened here at its first read for sequential reading, and kept for the next; at most
/// <see cref="MaxOpen"/> at once (another is closed when over), so a strategy that reads many files in step neither
/// reopens them per chunk nor runs out of descriptors. Used by one thread at a time.
/// </summary>
internal sealed class OpenFileSet : IDisposable
{
    /// <summary>Most files one set (one thread) keeps open.</summary>
    public const int MaxOpen = 96;

    private readonly FileReader _reader;
    private readonly IReadOnlyList<FileNode> _nodes;
    private readonly OpenedFile[] _files;
    private int _openCount;
    private int _clock;

    /// <param name="reader">The scan's reader.</param>
    /// <param name="nodes">The set's files.</param>
    /// <param name="adopted">Files another set's probe left open, by index: this set reads on through them (front to
    /// back now) and closes them, clearing their slots; the array is this set's from now on.</param>
    public OpenFileSet(FileReader reader, IReadOnlyList<FileNode> nodes, OpenedFile[]? adopted = null)
    {
        _reader = reader;
        _nodes = nodes;
        _files = adopted ?? new OpenedFile[nodes.Count];
        foreach (var file in _files)
        {
            if (file.IsOpen)
            {
                _openCount++;
                // Stryker disable once Statement : a read-ahead hint (posix_fadvise): no observable outcome
                FileReader.Advise(file, ReadHint.Sequential); // opened for a probe: now read front to back
            }
        }
    }

    /// <summary>Whether any file of the set is open.</summary>
    public bool Any => _openCount > 0;

    /// <summary>Keeps <paramref name="file"/>, just opened by a read of file <paramref name="index"/> (none is open there).</summary>
    public void Keep(int index, OpenedFile file)
    {
        _files[index] = file;
        _openCount++;
    }

    /// <summary>File <paramref name="index"/>, if open, now the caller's (its slot is cleared); else <see cref="OpenedFile.None"/>.</summary>
    public OpenedFile Take(int index)
    {
        var file = _files[index];
        if (file.IsOpen)
        {
            _files[index] = OpenedFile.None;
            _openCount--;
        }

        return file;
    }

    /// <summary>Reads exactly <paramref name="destination"/> at a content offset of file <paramref name="index"/>, opening it first if needed.</summary>
    public bool TryRead(int index, long offset, Span<byte> destination, IContentMap? map, bool observe = true)
    {
        if (!_files[index].IsOpen && !TryOpen(index))
        {
            return false;
        }

        return _reader.TryRead(_files[index], offset, destination, map, observe);
    }

    /// <summary>
    /// Shows the reader's observer bytes of file <paramref name="index"/> read without it, equal to those of file
    /// <paramref name="sameAs"/> (-1: none) at that offset (<see cref="FileReader.Observe"/>); nothing for a file not open.
    /// </summary>
    public void Observe(int index, long offset, ReadOnlySpan<byte> bytes, int sameAs)
    {
        if (_files[index].IsOpen)
        {
            _reader.Observe(_files[index], offset, bytes, sameAs >= 0 ? _nodes[sameAs] : null);
        }
    }

    /// <summary>The reader's last check of file <paramref name="index"/>, through the open file while there is one, else by path.</summary>
    public bool IsUnchanged(int index) =>
        _files[index].IsOpen ? _reader.IsUnchanged(_files[index]) : _reader.IsUnchanged(_nodes[index]);

    /// <summary>Closes file <paramref name="index"/>, if open.</summary>
    public void Release(int index) => Take(index).Close();

    /// <summary>Closes every open file.</summary>
    public void Dispose()
    {
        for (var i = 0; i < _files.Length; i++)
        {
            Release(i);
        }
    }

    private bool TryOpen(int index)
    {
        if (_openCount >= MaxOpen)
        {
            CloseAnother(index);
        }

        var file = _reader.TryOpen(_nodes[index], ReadHint.Sequential);
        if (!file.IsOpen)
        {
            return false;
        }

        Keep(index, file);
        return true;
    }

    private void CloseAnother(int except)
    {
        // Called at the cap (MaxOpen > 0 files open), so the loop returns on an open file before its bound.
        for (var n = 0;
             // Stryker disable once Equality : see above: the bound is never reached
             n < _files.Length;
             // Stryker disable once Update : see above: the bound is never reached
             n++)
        {
            _clock = (_clock + 1) % _files.Length;
            if (_clock != except && _files[_clock].IsOpen)
            {
                Release(_clock);
                return;
            }
        }
    }
}
