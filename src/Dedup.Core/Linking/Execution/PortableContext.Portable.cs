using System.Globalization;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// One Delete or Trash action being applied on Windows or macOS: the re-checks and byte verification
/// <see cref="LinkContext"/> does on Linux, built on <see cref="PortableFile"/>. The portable scan records no
/// file identities, so each file's identity is taken at its first check here and must stay the same until the
/// last one; and the duplicate must not be the kept file itself under another path (a hard link, a linked
/// folder, a second path to the same volume), which a byte comparison alone would pass.
/// </summary>
internal sealed class PortableContext : IDisposable
{
    private const string KeptConsequence = "nothing done";
    private const string DuplicateConsequence = "left untouched";
    private const string NotPlain = "is a symbolic link or another reparse point (such as a cloud placeholder), not a plain file";

    private FileIdentity? _keptIdentity;
    private FileIdentity? _duplicateIdentity;
    private SafeFileHandle? _keptHandle;

    public PortableContext(DuplicateAction action)
    {
        Action = action;
        KeptPath = action.Kept.Path.ToString();
        DuplicatePath = action.Path.ToString();
    }

    public DuplicateAction Action { get; }

    /// <summary>The journal run to write ahead to, or <see langword="null"/>.</summary>
    public JournalRun? Journal { get; init; }

    public string KeptPath { get; }

    public string DuplicatePath { get; }

    /// <summary>
    /// Writes the <c>begun</c> line of <paramref name="kind"/> after the last check, with what the portable checks know:
    /// the identities, sizes and modification times (no mode, owner, access time or attributes). A link or clone gives
    /// the name it will put in place (<paramref name="replacement"/>, read as itself) as <c>after</c>, and a symbolic
    /// link its text; a trash move's location follows in a <c>trashed</c> line (<see cref="Trashed"/>).
    /// </summary>
    public void Begin(string kind, string? replacement = null, string? target = null)
    {
        if (Journal is null)
        {
            return;
        }

        var duplicate = _duplicateIdentity ?? Action.Duplicate.Identity;
        var kept = _keptIdentity ?? Action.Kept.Identity;
        JournalFile? after = null;
        if (replacement is not null)
        {
            after = FileOf(replacement) ?? throw ActionStoppedException.Fail($"cannot examine the replacement before the rename; {DuplicateConsequence}");
        }

        Journal.Begun(new BegunEntry(kind, DuplicatePath, new JournalBefore(duplicate.Device, duplicate.FileId, Action.Duplicate.Length, Nanoseconds(Action.Duplicate.LastWriteTimeUtc)))
        {
            Kept = KeptPath,
            KeptFile = new JournalFile(kept.Device, kept.FileId, Action.Kept.Length, Nanoseconds(Action.Kept.LastWriteTimeUtc)),
            After = after,
            Target = target,
        });
    }

    /// <summary>
    /// After a system trash move: records where the file went, when <paramref name="location"/> names a file that is
    /// the duplicate itself (its identity, size and time); anything else is not written, and undo then says to restore
    /// the file by hand.
    /// </summary>
    public void Trashed(TrashedLocation? location)
    {
        if (Journal is null || location is null || _duplicateIdentity is not { } duplicate)
        {
            return;
        }

        if (FileOf(location.Path) is { } moved && moved.Device == duplicate.Device && moved.Inode == duplicate.FileId
            && moved.Size == Action.Duplicate.Length && moved.MtimeNs == Nanoseconds(Action.Duplicate.LastWriteTimeUtc))
        {
            Journal.Trashed(location.Path, location.Info);
        }
    }

    /// <summary>The duplicate's identity from its first check (the system trash finds the moved file by it).</summary>
    public FileIdentity? DuplicateIdentity => _duplicateIdentity;

    /// <summary>A name read as itself (a link is not followed): identity, size and modification time; <see langword="null"/> when it cannot be read.</summary>
    internal static JournalFile? FileOf(string path)
    {
        using var handle = PortableFile.TryOpen(path, out _);
        if (handle is null)
        {
            return null;
        }

        try
        {
            var status = PortableFile.StatusOf(handle);
            return new JournalFile(status.Identity.Device, status.Identity.FileId, RandomAccess.GetLength(handle), Nanoseconds(File.GetLastWriteTimeUtc(handle)));
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or PlatformNotSupportedException)
        {
            return null;
        }
    }

    /// <summary>The kept file's identity from its first check (Windows hard links check their new name against it).</summary>
    public FileIdentity? KeptIdentity => _keptIdentity;

    private string KeptRole => "kept file " + PathText.Escape(KeptPath);

    /// <summary>The kept file's name must still be a regular file of the scanned size and time, and the same file as at the first check.</summary>
    public void CheckKeptUnchanged()
    {
        OpenChecked(KeptPath, Action.Kept, ref _keptIdentity, KeptRole, KeptConsequence).Dispose();

        if (_keptHandle is not null)
        {
            // Stryker disable once Statement : the name was just checked to lead to this same file (same identity), whose size and time the handle gives alike
            Require(_keptHandle, Action.Kept, ref _keptIdentity, KeptRole, KeptConsequence);
        }
    }

    /// <summary>The duplicate's name likewise, and it must not lead to the kept file.</summary>
    public void CheckDuplicateUnchanged()
    {
        OpenChecked(DuplicatePath, Action.Duplicate, ref _duplicateIdentity, "duplicate", DuplicateConsequence).Dispose();

        RequireDistinctFiles();
    }

    /// <summary>Compares the duplicate with the kept file byte for byte, each opened as itself and checked again.</summary>
    public void VerifyContent()
    {
        _keptHandle ??= OpenChecked(KeptPath, Action.Kept, ref _keptIdentity, KeptRole, KeptConsequence);
        using var duplicate = OpenChecked(DuplicatePath, Action.Duplicate, ref _duplicateIdentity, "duplicate", DuplicateConsequence);
        RequireDistinctFiles();
        ContentVerification.RequireEqual(_keptHandle, duplicate, Action.Duplicate.Length);
    }

    /// <summary>The kept file opened and compared by <see cref="VerifyContent"/> (Windows clones share its clusters).</summary>
    public SafeFileHandle KeptHandle => _keptHandle ?? throw new InvalidOperationException("The content was not verified yet.");

    /// <summary>Reads from the duplicate opened as itself and checked to be the scanned file (Windows clones copy its times).</summary>
    public T ReadDuplicate<T>(Func<SafeFileHandle, T> read)
    {
        using var duplicate = OpenChecked(DuplicatePath, Action.Duplicate, ref _duplicateIdentity, "duplicate", DuplicateConsequence);
        RequireDistinctFiles();
        return read(duplicate);
    }

    public void Dispose() => _keptHandle?.Dispose();

    /// <summary>Why a name could not be opened as itself, in the words of the Linux re-check where they apply.</summary>
    internal static string WhyNotOpened(string path, string error)
    {
        try
        {
            // Does not follow a final symbolic link (Unix) or reparse point (Windows).
            var attributes = File.GetAttributes(path);
            if ((attributes & FileAttributes.ReparsePoint) != 0)
            {
                return NotPlain;
            }

            if ((attributes & FileAttributes.Directory) != 0)
            {
                return "was replaced by a folder since the scan";
            }
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            return $"was deleted or renamed since the scan ({error})";
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Fall through to the system's message from the open.
        }

        return $"cannot be opened: {error}";
    }

    /// <summary>Opens <paramref name="path"/> as itself and checks it; the handle is closed again when a check fails.</summary>
    private static SafeFileHandle OpenChecked(string path, DuplicateFile scanned, ref FileIdentity? identity, string role, string consequence)
    {
        var handle = PortableFile.TryOpen(path, out var error)
            ?? throw ActionStoppedException.Skip($"{role} {WhyNotOpened(path, error)}; {consequence}");
        try
        {
            Require(handle, scanned, ref identity, role, consequence);
            return handle;
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    /// <summary>The open file must be a regular file with the scanned size and time and, after the first check, the same identity.</summary>
    private static void Require(SafeFileHandle handle, DuplicateFile scanned, ref FileIdentity? identity, string role, string consequence)
    {
        string? change;
        try
        {
            var status = PortableFile.StatusOf(handle);
            change = Describe(handle, status, scanned, identity);
            // Stryker disable once Assignment : once set, the identity is reassigned only when Describe found it equal (else the check throws)
            identity ??= status.Identity;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            change = $"cannot be examined ({ex.Message})";
        }

        if (change is not null)
        {
            throw ActionStoppedException.Skip($"{role} {change}; {consequence}");
        }
    }

    /// <summary>What differs between the open file and the scan (or the identity first seen), or <see langword="null"/>.</summary>
    private static string? Describe(SafeFileHandle handle, PortableFileStatus now, DuplicateFile scanned, FileIdentity? identity)
    {
        switch (now.Kind)
        {
            case PortableFileKind.Link:
                return NotPlain;
            case PortableFileKind.Directory:
                return "was replaced by a folder since the scan";
            case PortableFileKind.Other:
                return "is no longer a regular file";
        }

        if (identity is { } seen && seen != now.Identity)
        {
            return "was replaced by another file since the last check";
        }

        // Read from the handle as the scan read them from the name (FileInfo): the same BCL conversion of the times.
        var length = RandomAccess.GetLength(handle);
        if (length != scanned.Length)
        {
            return string.Create(CultureInfo.InvariantCulture, $"changed size from {scanned.Length} to {length} bytes since the scan");
        }

        return File.GetLastWriteTimeUtc(handle) != scanned.LastWriteTimeUtc ? "was modified since the scan" : null;
    }

    private void RequireDistinctFiles()
    {
        if (_keptIdentity is { } kept && kept == _duplicateIdentity)
        {
            throw ActionStoppedException.Skip(
                $"the duplicate is the kept file itself under another path (a hard link, a linked folder or another path to the same volume); {DuplicateConsequence}");
        }
    }

    internal static long Nanoseconds(DateTime utc) => (utc.Ticks - DateTime.UnixEpoch.Ticks) * 100;
}

/// <summary>Where a system trash move put a file: the file there, and (Recycle Bin) the <c>$I…</c> file that describes it.</summary>
internal sealed record TrashedLocation(string Path, string? Info);

/// <summary>Moves one file to the system trash; returns where it went when the platform can tell (checked by <see cref="PortableContext.Trashed"/>).</summary>
internal delegate TrashedLocation? SystemTrashMove(string path, FileIdentity? identity);
