using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// The portable restores. A link or clone: the content the name leads to now (or, for a symbolic link, the kept file)
/// is copied to a new temporary name in the same folder, verified byte for byte, given the logged modification time and
/// flushed to disk; then the <c>undone</c> line is synced, the name re-checked, and the copy renamed over it (the one
/// replacing rename, made only after the re-check). A trashed file is moved back to its name without replacing anything,
/// then (Windows) its <c>$I…</c> file is removed.
/// </summary>
internal sealed partial class PortableUndoEngine
{
    private (UndoOutcome, string?) RestoreCopy(JournalStep step, NameState inspected)
    {
        var before = step.Before.File;
        var folder = Path.GetDirectoryName(step.Path)!;
        string problem;
        var source = step.Kind == UndoKinds.SymbolicLink ? OpenKept(step, out problem) : OpenName(step.Path, inspected, out problem);
        if (source is null)
        {
            return (UndoOutcome.LeftAlone, problem);
        }

        var temporary = Path.Combine(folder, TemporaryNames.NewName());
        FileStream copy;
        try
        {
            copy = new FileStream(temporary, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, 1);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            source.Dispose();
            return (UndoOutcome.Failed, $"cannot create a copy in {PathText.Escape(folder)}: {ex.Message}");
        }

        var renamed = false;
        try
        {
            Enumeration.FileIdentity made;
            using (source)
            using (copy)
            {
                ContentVerification.Copy(source, copy.SafeFileHandle, before.Size);
                try
                {
                    ContentVerification.RequireEqual(source, copy.SafeFileHandle, before.Size);
                }
                catch (ActionStoppedException ex)
                {
                    return (UndoOutcome.Failed, $"the copy does not hold the content it was made from ({ex.Message.Replace("; left untouched", string.Empty)})");
                }

                if (RandomAccess.GetLength(copy.SafeFileHandle) != before.Size)
                {
                    return (UndoOutcome.Failed, "the copy does not have the logged size");
                }

                copy.Flush(flushToDisk: true);
                SetWriteTime(copy, temporary, before.MtimeNs);
                copy.Flush(flushToDisk: true);
                made = PortableFile.StatusOf(copy.SafeFileHandle).Identity;
            }

            Writer.Undone(step, made.Device, made.FileId);
            Faults?.Invoke(step.Path);

            // The name must still be exactly what was inspected, and the copy what was written.
            if (NameState.Read(step.Path, out _) != inspected)
            {
                return (UndoOutcome.LeftAlone, "changed while being restored");
            }

            if (NameState.Read(temporary, out _) is not { Kind: PortableFileKind.RegularFile } written || written.Identity != made || !written.Matches(new JournalFile(made.Device, made.FileId, before.Size, before.MtimeNs)))
            {
                return (UndoOutcome.Failed, "the copy changed before it could be renamed over the name");
            }

            if (ReplaceName(temporary, step.Path) is { } failed)
            {
                return (UndoOutcome.Failed, $"cannot rename the copy over the name: {failed}");
            }

            renamed = true;
            return (UndoOutcome.Restored, null);
        }
        finally
        {
            if (!renamed)
            {
                TryDelete(temporary);
            }
        }
    }

    private (UndoOutcome, string?) RestoreFromTrash(JournalStep step)
    {
        var location = _journal.Trashed[(step.Run, step.Seq)];
        if (NameState.Read(location.Location, out _) is not { Kind: PortableFileKind.RegularFile } trashed || !trashed.Matches(step.Before.File))
        {
            return (UndoOutcome.LeftAlone, $"changed in {TrashName} while being restored");
        }

        Writer.Undone(step, trashed.Identity.Device, trashed.Identity.FileId);
        Faults?.Invoke(step.Path);
        if (MoveBack(location.Location, step.Path) is { } failed)
        {
            return Exists(step.Path)
                ? (UndoOutcome.LeftAlone, $"the name was taken while being restored; never overwritten (the file stays in {TrashName})")
                : (UndoOutcome.Failed, $"cannot move it back from {TrashName}: {failed}");
        }

        RemoveInfo(step, location);
        return (UndoOutcome.Restored, null);
    }

    /// <summary>An already restored file's <c>$I…</c> file, left by an undo killed between the move back and its removal.</summary>
    private void RemoveInfoFile(JournalStep step)
    {
        if (_journal.Trashed.TryGetValue((step.Run, step.Seq), out var location) && !Exists(location.Location))
        {
            RemoveInfo(step, location);
        }
    }

    /// <summary>
    /// Removes the Recycle Bin's <c>$I…</c> file of a restored file: only the one beside the recorded <c>$R…</c> file, of
    /// the same suffix, that says it describes this very name (so a journal cannot make undo remove another file).
    /// </summary>
    private static void RemoveInfo(JournalStep step, JournalTrashed location)
    {
        if (location.Info is not { } info
            || !string.Equals(Path.GetDirectoryName(info), Path.GetDirectoryName(location.Location), StringComparison.OrdinalIgnoreCase)
            || RecycleBin.DataName(Path.GetFileName(info)) is not { } data
            || !string.Equals(data, Path.GetFileName(location.Location), StringComparison.Ordinal))
        {
            return;
        }

        try
        {
            var bytes = File.ReadAllBytes(info);
            if (RecycleBin.ParseInfo(bytes) is { } parsed && string.Equals(parsed.OriginalPath, step.Path, StringComparison.OrdinalIgnoreCase))
            {
                File.Delete(info);
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Left: Explorer then lists an entry whose file is gone, and drops it.
        }
    }

    private static void TryDelete(string temporary)
    {
        try
        {
            File.Delete(temporary);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Left behind under the temporary pattern; its bytes are a copy of a content that still exists.
        }
    }

    /// <summary>The name itself, opened as itself, still the file inspected.</summary>
    private static SafeFileHandle? OpenName(string path, NameState inspected, out string problem)
    {
        var handle = NameState.Open(path, out var opened, out problem);
        if (handle is not null && opened != inspected)
        {
            handle.Dispose();
            problem = "changed while being restored";
            return null;
        }

        return handle;
    }

    private static void SetWriteTime(FileStream copy, string path, long mtimeNs)
    {
        var time = DateTime.SpecifyKind(DateTime.UnixEpoch.AddTicks(mtimeNs / 100), DateTimeKind.Utc);
#if NET
        _ = path;
        File.SetLastWriteTimeUtc(copy.SafeFileHandle, time);
#else
        _ = copy;
        File.SetLastWriteTimeUtc(path, time); // netstandard2.0 sets times by name only; the copy's name is ours (CreateNew)
#endif
    }

    /// <summary>Renames <paramref name="from"/> over <paramref name="to"/> (one rename in one folder); the system's message on failure.</summary>
    private static string? ReplaceName(string from, string to)
    {
        if (OperatingSystem.IsWindows())
        {
            return ReplaceNameWindows(from, to);
        }

        try
        {
#if NET
            File.Move(from, to, overwrite: true); // rename(2)
#else
            File.Replace(from, to, null);
#endif
            return null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return ex.Message;
        }
    }

    /// <summary>Moves <paramref name="from"/> to the free name <paramref name="to"/>, never replacing a file there; the system's message on failure.</summary>
    private static string? MoveBack(string from, string to)
    {
        if (OperatingSystem.IsWindows())
        {
            return MoveBackWindows(from, to);
        }

        try
        {
            File.Move(from, to); // link(2) and unlink(2): a taken name fails (EEXIST)
            return null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return ex.Message;
        }
    }
}
