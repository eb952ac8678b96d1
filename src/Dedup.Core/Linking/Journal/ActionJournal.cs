using Dedup.Core.Interop;

namespace Dedup.Core.Linking.Journal;

/// <summary>
/// The write-ahead journal of actions on duplicates, the file <c>dedup link/delete --log</c> writes and <c>dedup undo</c>
/// reads: JSON Lines, appended. Before each step that changes a name, a plan carrying the journal
/// (<see cref="DuplicateActionPlanBuilder.UseJournal"/>) writes and syncs to disk what undoing the step needs: the name as
/// bytes, the kept file's identity, the replaced file's size, owner, group, mode, times, extended attributes and inode
/// flags, and for the trash where the file went. Each action's outcome follows it. The format (version
/// <see cref="FormatVersion"/>) is described in <c>docs/journal.md</c>.
/// </summary>
/// <remarks>
/// One journal may be shared by several plans applied one after the other (each is a run of its own in the file) or at
/// the same time (lines are written whole, one at a time). Dispose it once the plans are applied.
/// </remarks>
public sealed class ActionJournal : IDisposable
{
    /// <summary>The version of the format this writer writes, the first field of every line.</summary>
    public const int FormatVersion = 2;

    private readonly FileStream _stream;
    private readonly object _gate = new();
    private bool _disposed;

    private ActionJournal(string path, FileStream stream)
    {
        Path = path;
        _stream = stream;
    }

    /// <summary>Lines synced to disk so far (for tests: run and begun lines are, outcomes are not).</summary>
    internal int DataSyncs { get; private set; }

    /// <summary>The journal file, as given to <see cref="Open"/> (made absolute).</summary>
    public string Path { get; }

    /// <summary>
    /// Opens the journal file for appending, creating it when it does not exist; a new file and its name in its folder
    /// are synced to disk before this returns, so that later lines need only their data synced.
    /// </summary>
    /// <param name="path">The file; an existing one is appended to (its earlier runs are kept).</param>
    /// <returns>The journal, to give to <see cref="DuplicateActionPlanBuilder.UseJournal"/> and dispose after the runs.</returns>
    /// <exception cref="IOException">The file cannot be created, opened or synced.</exception>
    /// <exception cref="UnauthorizedAccessException">The file or its folder may not be written.</exception>
    public static ActionJournal Open(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        var full = System.IO.Path.GetFullPath(path);
        var stream = OperatingSystem.IsLinux() ? OpenAppending(full, out var created) : OpenPortable(full, out created);

        try
        {
            if (created)
            {
                stream.Flush(flushToDisk: true);
                SyncFolderOf(full);
            }
            else if (EndsInTornLine(full))
            {
                // A kill or power cut mid-line left a line without its end: this run's lines start on a line of their own.
                stream.WriteByte((byte)'\n');
                stream.Flush(flushToDisk: true);
            }
        }
        catch
        {
            stream.Dispose();
            throw;
        }

        return new ActionJournal(full, stream);
    }

    /// <summary>Whether the file is not empty and its last byte is not a line end.</summary>
    private static bool EndsInTornLine(string path)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1);
        if (file.Length == 0)
        {
            return false;
        }

        file.Seek(-1, SeekOrigin.End);
        return file.ReadByte() != '\n';
    }

    /// <summary>
    /// Linux: <c>O_APPEND</c>, so that every line lands at the end even when another process appends to the same
    /// file meanwhile (.NET's <see cref="FileMode.Append"/> only seeks to the end once).
    /// </summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static FileStream OpenAppending(string path, out bool created)
    {
        var flags = Libc.O_WRONLY | Libc.O_APPEND | Libc.O_CLOEXEC | Libc.O_NOFOLLOW;
        created = true;

        // 0644 less the umask: undo trusts a journal only its owner can write (JournalTrust), whatever the umask.
        var fd = Libc.Open(path, flags | Libc.O_CREAT | Libc.O_EXCL, 0x1A4);
        if (fd < 0 && Libc.LastErrno == Libc.EEXIST)
        {
            created = false;
            fd = JournalTrust.OpenTrusted(path, Libc.O_WRONLY | Libc.O_APPEND, forUndo: false); // a run added to a journal undo would refuse could never be undone
        }

        if (fd < 0)
        {
            var errno = Libc.LastErrno;
            var message = $"cannot open the journal {path}: {Libc.Message(errno)}";
            throw errno is 1 or 13 ? new UnauthorizedAccessException(message) : new IOException(message); // EPERM, EACCES
        }

        var handle = new Microsoft.Win32.SafeHandles.SafeFileHandle((nint)fd, ownsHandle: true);
        try
        {
            return new FileStream(handle, FileAccess.Write, 1);
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    /// <summary>Elsewhere: created new when it does not exist, else opened at its end.</summary>
    private static FileStream OpenPortable(string path, out bool created)
    {
        try
        {
            created = true;
            return new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.Read, 1);
        }
        catch (IOException) when (File.Exists(path))
        {
            created = false;
            return new FileStream(path, FileMode.Append, FileAccess.Write, FileShare.Read, 1);
        }
    }

    /// <summary>Closes the file.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _disposed = true;
            _stream.Dispose();
        }
    }

    /// <summary>Appends one whole line (the JSON object and its newline in one write); synced to disk when <paramref name="durable"/>.</summary>
    /// <exception cref="IOException">The line could not be written or synced.</exception>
    /// <exception cref="ObjectDisposedException">The journal was disposed.</exception>
    internal void Append(byte[] line, int count, bool durable)
    {
        lock (_gate)
        {
#if NET
            ObjectDisposedException.ThrowIf(_disposed, this);
#else
            if (_disposed)
            {
                throw new ObjectDisposedException(nameof(ActionJournal));
            }
#endif
            _stream.Write(line, 0, count);
            _stream.Flush();
            if (durable)
            {
                SyncData();
                DataSyncs++;
            }
        }
    }

    /// <summary>fdatasync on Linux (the file's size, and so the new line, is data for it); a full flush elsewhere.</summary>
    private void SyncData()
    {
        if (OperatingSystem.IsLinux())
        {
            if (Libc.Fdatasync((int)_stream.SafeFileHandle.DangerousGetHandle()) != 0)
            {
                throw new IOException($"cannot sync the journal {Path}: {Libc.Message(Libc.LastErrno)}");
            }

            return;
        }

        _stream.Flush(flushToDisk: true);
    }

    /// <summary>Linux: the new file's name reaches the disk with its folder (elsewhere the system has no call for it).</summary>
    private static void SyncFolderOf(string file)
    {
        if (!OperatingSystem.IsLinux() || System.IO.Path.GetDirectoryName(file) is not { } folder)
        {
            return;
        }

        var fd = Libc.Open(folder, Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_CLOEXEC, 0);
        if (fd < 0)
        {
            throw new IOException($"cannot open the journal's folder {folder} to sync it: {Libc.Message(Libc.LastErrno)}");
        }

        try
        {
            if (Libc.Fsync(fd) != 0)
            {
                throw new IOException($"cannot sync the journal's folder {folder}: {Libc.Message(Libc.LastErrno)}");
            }
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }
}
