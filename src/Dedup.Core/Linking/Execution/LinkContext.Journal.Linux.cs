using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Journal;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// The action's part of the journal (<see cref="JournalRun"/>): the duplicate as the action's first check saw it, its
/// inode flags and extended attributes from the file the action opened, and the <c>begun</c> line written right before
/// the step. Without a journal none of this makes a call.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class LinkContext
{
    private StatxBuffer? _before; // the duplicate at the first check, with a journal (its access time before we read it)
    private (int Flags, IReadOnlyList<KeyValuePair<string, byte[]>>? Xattrs)? _beforeExtras;
    private JournalParent? _parent; // the duplicate's folder before this action changed anything in it, with a journal

    /// <summary>The journal run to write ahead to, or <see langword="null"/> (then no call is made for it).</summary>
    public JournalRun? Journal { get; init; }

    /// <summary>
    /// With a journal, writes (and syncs) the <c>begun</c> line of the step about to change the name: called after the
    /// last check, right before the step. The duplicate is described as at the action's first check, with the inode
    /// flags and extended attributes read from the file the action opened (opened here only if it was not).
    /// </summary>
    public void Begin(string kind, JournalFile? after = null, string? target = null, JournalTrash? trash = null)
    {
        if (Journal is null)
        {
            return;
        }

        if (_beforeExtras is null)
        {
            using var duplicate = OpenChecked(FolderFd, DuplicateName, DuplicatePath, Action.Duplicate, "duplicate", "nothing done", ref _duplicateChanged);
            CaptureExtras(duplicate);
        }

        var (flags, xattrs) = _beforeExtras!.Value;
        Journal.Begun(new BegunEntry(kind, DuplicatePath, JournalBefore.Of(_before ?? DuplicateStatus, flags, xattrs))
        {
            Kept = KeptPath,
            KeptFile = JournalFile.Of(KeptStatus),
            After = after,
            Target = target,
            Trash = trash,
            Parent = _parent,
        });
    }

    /// <summary>
    /// With a journal, at the action's first check (before a temporary name is made): the duplicate as it is, and its
    /// folder's times as the run last recorded them through this open folder, else from the folder itself (one status
    /// call, on the descriptor held).
    /// </summary>
    private void FirstCheckForJournal(in StatxBuffer duplicate)
    {
        if (Journal is null)
        {
            return;
        }

        _before ??= duplicate;
        if (_parent is null)
        {
            var fd = FolderFd;
            _parent = Journal.Known(_folder!) ?? (Libc.FStat(fd, out var folder) == 0 ? JournalParent.Of(folder) : null);
        }
    }

    /// <summary>With a journal, once the action's step was begun: the folder as the step left it, for the outcome line and the next step.</summary>
    private void RecordParentAfter()
    {
        if (Journal?.CurrentSeq is not null && _parent is not null && _folder is not null && Libc.FStat(_folder.Fd, out var folder) == 0)
        {
            Journal.StepMade(_folder, JournalParent.Of(folder));
        }
    }

    /// <summary>The replacement under its temporary name (not followed), as the name will lead to it.</summary>
    private JournalFile Replacement(string temporary)
    {
        var errno = Libc.LStatAt(FolderFd, temporary, out var status);
        return errno == 0
            ? JournalFile.Of(status)
            : throw ActionStoppedException.Fail($"cannot read the replacement for the journal: {Libc.Message(errno)}; duplicate unchanged");
    }

    /// <summary>With a journal, the inode flags and extended attributes of the duplicate, from the file the action opened.</summary>
    private void CaptureExtras(SafeFileHandle duplicate)
    {
        if (Journal is not null && _beforeExtras is null)
        {
            _beforeExtras = (JournalMetadata.Flags(Fd(duplicate)), JournalMetadata.Xattrs(Fd(duplicate)));
        }
    }
}
