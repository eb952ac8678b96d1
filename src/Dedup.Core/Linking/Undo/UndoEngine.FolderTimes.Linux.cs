using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// Folders' times. Every rename or unlink moves its folder's modification time, the forward run's and undo's alike; the
/// <c>begun</c> lines record the folder (identity and times) right before each step, the outcome lines the modification
/// time each step left. After the plan's last step in a folder, once every journalled step in it is restored (or already
/// was), the folder gets back the times of its oldest <c>begun</c> line (since the last undo that gave them back), by
/// identity, on a real open of the folder checked to be the one the journal names (or the one undo made again in its
/// place). Only when nobody else changed it meanwhile: its modification time, as undo first found it, must be the one
/// the journal last recorded; a step whose result was not recorded (a run or an undo killed right there, a leftover
/// temporary name of ours) counts as ours. Otherwise the folder gets back the times undo found it with, and the step says so.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class UndoEngine
{
    private readonly Dictionary<(ulong, ulong), (long AtimeNs, long MtimeNs)> _seen = [];
    private readonly HashSet<(ulong, ulong)> _cutShort = [];
    private readonly HashSet<(ulong, ulong)> _timesDecided = [];
    private readonly Dictionary<(string Run, long Seq), UndoOutcome> _outcomes = [];
    private Dictionary<(ulong, ulong), HashSet<(ulong, ulong)>>? _remadeAs;
    private Dictionary<(ulong, ulong), List<JournalStep>>? _inFolder;
    private Dictionary<(ulong, ulong), JournalStep>? _lastSelected;

    /// <summary>The plan's steps in the order they are applied: the last one in each folder gives the folder its times.</summary>
    public void Select(IEnumerable<JournalStep> steps)
    {
        _lastSelected = [];
        foreach (var step in steps)
        {
            if (step.Parent is { } parent)
            {
                _lastSelected[parent.Identity] = step;
            }
        }
    }

    /// <summary>The folder's identity and, the first time undo opens it, its times as found (before undo changes anything there).</summary>
    private (ulong, ulong)? Seen(FolderHandle folder)
    {
        if (Libc.FStat(folder.Fd, out var status) != 0)
        {
            return null;
        }

        var key = (status.Device, status.Ino);
        if (!_seen.ContainsKey(key))
        {
            _seen[key] = (AtimeNs(status), status.LastWriteTimeNs);
        }

        return key;
    }

    /// <summary>A removed folder this undo made again: it stands for the journal's folder, and its times are all undo's.</summary>
    private void Remade(JournalStep step, (ulong, ulong) made)
    {
        var original = (step.Before.File.Device, step.Before.File.Inode);
        var remade = RemadeAs;
        if (!remade.TryGetValue(original, out var identities))
        {
            remade[original] = identities = [];
        }

        identities.Add(made);
        _cutShort.Add(made);
    }

    /// <summary>The step's reason, with a note when the step was the plan's last in its folder and the folder's times were not given back.</summary>
    private string? FolderTimesAfter(JournalStep step, JournalRun? run, UndoOutcome outcome, string? reason)
    {
        _outcomes[(step.Run, step.Seq)] = outcome;
        if (run is null || step.Parent is not { } parent || _lastSelected is null
            || !_lastSelected.TryGetValue(parent.Identity, out var last) || !ReferenceEquals(last, step))
        {
            return reason;
        }

        return Join(reason, GiveFolderTimes(step, run, parent.Identity));
    }

    private string? GiveFolderTimes(JournalStep step, JournalRun run, (ulong Device, ulong Inode) journalFolder)
    {
        var records = _journal.Folders.TryGetValue(journalFolder, out var found) ? found : [];
        var settled = records.LastOrDefault(r => r.Restored).Line;
        var steps = InFolder(journalFolder).Where(s => s.Line > settled).ToList();
        if (steps.Count == 0 || !steps.All(IsRestored))
        {
            return null; // a part of it (--only, a step left alone): the times wait until all of it is back
        }

        using var folder = OpenFolder(run, step.Path, out _, out _);
        if (folder is null || Libc.FStat(folder.Fd, out var now) != 0)
        {
            return null;
        }

        var current = (now.Device, now.Ino);
        if (current != journalFolder && !(RemadeAs.TryGetValue(journalFolder, out var remade) && remade.Contains(current)))
        {
            return "its folder is not the one the journal names (replaced since); the folder's times are left as they are";
        }

        _timesDecided.Add(current);
        var original = steps[0].Parent!.Value;
        var seen = _seen.TryGetValue(current, out var first) ? first : (AtimeNs: AtimeNs(now), MtimeNs: now.LastWriteTimeNs);
        var last = records.Count > 0 ? records[^1] : default;
        var ours = !last.Kept && (_cutShort.Contains(current) || last.MtimeNs is null || last.MtimeNs == seen.MtimeNs);
        var (atime, mtime) = ours ? (original.AtimeNs, original.MtimeNs) : seen;
        var note = ours ? null : "its folder was changed since the journal's last record of it (by someone else): the folder keeps the times undo found it with";
        if (now.LastWriteTimeNs == mtime)
        {
            return note; // as it was (a repeat undo), or undo changed nothing there
        }

        var failed = SetFolderTimes(folder, current, atime, mtime);
        if (failed is not null)
        {
            return Join(note, $"the folder's times could not be set back: {failed}");
        }

        Writer.FolderTimes(step.Run, journalFolder, mtime, kept: !ours, restored: ours);
        return note;
    }

    /// <summary>Whether a journalled step is restored now (by this undo or an earlier one) or was never done.</summary>
    private bool IsRestored(JournalStep step)
    {
        if (_outcomes.TryGetValue((step.Run, step.Seq), out var outcome))
        {
            return outcome is UndoOutcome.Restored or UndoOutcome.AlreadyRestored or UndoOutcome.WasNotDone;
        }

        var run = _journal.Runs.LastOrDefault(r => string.Equals(r.Id, step.Run, StringComparison.Ordinal));
        return Inspect(step, run).Outcome is UndoOutcome.AlreadyRestored or UndoOutcome.WasNotDone;
    }

    /// <summary>Sets the times on a real open of the folder (<c>futimens</c> refuses an <c>O_PATH</c> descriptor), checked to be <paramref name="identity"/>.</summary>
    private static unsafe string? SetFolderTimes(FolderHandle folder, (ulong Device, ulong Inode) identity, long atimeNs, long mtimeNs)
    {
        var fd = Libc.OpenAt(folder.Fd, ".", Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_CLOEXEC, 0);
        if (fd < 0)
        {
            return Libc.Message(Libc.LastErrno);
        }

        try
        {
            if (Libc.FStat(fd, out var opened) != 0 || (opened.Device, opened.Ino) != identity)
            {
                return "it changed while being opened";
            }

            var times = stackalloc TimeSpec[2];
            times[0] = ToTimeSpec(atimeNs);
            times[1] = ToTimeSpec(mtimeNs);
            return Libc.Futimens(fd, times) == 0 ? null : Libc.Message(Libc.LastErrno);
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    /// <summary>The journal's steps per folder (the identity their <c>parent</c> gives), oldest first.</summary>
    private List<JournalStep> InFolder((ulong, ulong) folder)
    {
        if (_inFolder is null)
        {
            _inFolder = [];
            foreach (var step in _journal.Steps)
            {
                if (step.Parent is { } parent)
                {
                    if (!_inFolder.TryGetValue(parent.Identity, out var list))
                    {
                        _inFolder[parent.Identity] = list = [];
                    }

                    list.Add(step);
                }
            }
        }

        return _inFolder.TryGetValue(folder, out var steps) ? steps : [];
    }

    /// <summary>The identities removed folders were given when undo made them again (earlier undos' <c>undone</c> lines, and this one's).</summary>
    private Dictionary<(ulong, ulong), HashSet<(ulong, ulong)>> RemadeAs
    {
        get
        {
            if (_remadeAs is null)
            {
                _remadeAs = [];
                foreach (var step in _journal.Steps.Where(s => s.Kind == UndoKinds.RemoveFolder))
                {
                    if (_journal.Undone.TryGetValue((step.Run, step.Seq), out var identities))
                    {
                        var original = (step.Before.File.Device, step.Before.File.Inode);
                        if (!_remadeAs.TryGetValue(original, out var set))
                        {
                            _remadeAs[original] = set = [];
                        }

                        set.UnionWith(identities);
                    }
                }
            }

            return _remadeAs;
        }
    }

    private static long AtimeNs(in StatxBuffer status) => (status.AtimeSec * 1_000_000_000L) + status.AtimeNsec;

    private static string? Join(string? first, string? second) => first is null ? second : second is null ? first : first + "; " + second;
}
