using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

internal sealed partial class FileReader
{
    /// <summary>
    /// Handles for reading a list of files front to back, each opened at its first read, through each one's content map
    /// if any; <paramref name="open"/> are handles already open (the probe's, by index), which are taken over.
    /// </summary>
    public LazyHandles OpenLazily(IReadOnlyList<FileNode> files, IContentMap?[]? maps = null, SafeFileHandle?[]? open = null) => new(this, files, maps, open);

    /// <summary>
    /// The handles of one comparison set's files: each is opened at its first read (for sequential reading) and kept
    /// for the next, at most <see cref="MaxOpen"/> at once (another is closed when over), so a strategy that reads
    /// many files in step neither reopens them per chunk nor runs out of descriptors. Used by one thread at a time.
    /// </summary>
    internal sealed class LazyHandles : IDisposable
    {
        public const int MaxOpen = 96;

        private readonly FileReader _reader;
        private readonly IReadOnlyList<FileNode> _files;
        private readonly IContentMap?[]? _maps;
        private readonly SafeFileHandle?[] _handles;
        private int _openCount;
        private int _clock;

        public LazyHandles(FileReader reader, IReadOnlyList<FileNode> files, IContentMap?[]? maps, SafeFileHandle?[]? open = null)
        {
            _reader = reader;
            _files = files;
            _maps = maps;
            _handles = open ?? new SafeFileHandle?[files.Count];
            foreach (var handle in _handles)
            {
                if (handle is not null)
                {
                    _openCount++;
                    Advise(handle, ReadHint.Sequential); // opened for a probe: now read front to back
                }
            }
        }

        /// <summary>Reads exactly <paramref name="destination"/> at a content offset of file <paramref name="index"/>, opening it first if needed.</summary>
        public bool TryRead(int index, long offset, Span<byte> destination)
        {
            var handle = _handles[index] ?? Open(index);
            return handle is not null && _reader.TryRead(_files[index], handle, offset, destination, _maps?[index]);
        }

        /// <summary>The reader's last check of file <paramref name="index"/>, through its handle while it is open.</summary>
        public bool IsUnchanged(int index) => _reader.IsUnchanged(_files[index], _handles[index]);

        /// <summary>Closes file <paramref name="index"/>'s handle, if open.</summary>
        public void Release(int index)
        {
            var handle = _handles[index];
            if (handle is not null)
            {
                _handles[index] = null;
                _openCount--;
                handle.Dispose();
            }
        }

        public void Dispose()
        {
            for (var i = 0; i < _handles.Length; i++)
            {
                _handles[i]?.Dispose();
                _handles[i] = null;
            }
        }

        private SafeFileHandle? Open(int index)
        {
            if (_openCount >= MaxOpen)
            {
                CloseAnother(index);
            }

            var handle = _reader.TryOpen(_files[index].Primary, ReadHint.Sequential);
            if (handle is not null)
            {
                _handles[index] = handle;
                _openCount++;
            }

            return handle;
        }

        private void CloseAnother(int except)
        {
            for (var n = 0; n < _handles.Length; n++)
            {
                _clock = (_clock + 1) % _handles.Length;
                if (_clock != except && _handles[_clock] is not null)
                {
                    Release(_clock);
                    return;
                }
            }
        }
    }
}
