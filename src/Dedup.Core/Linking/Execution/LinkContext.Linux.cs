using System.Globalization;
using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// One action being applied: the re-checks against the scan, the byte verification and the
/// temporary-name-then-rename protocol shared by the linkers. Every step works on names relative to the kept
/// file's and the duplicate's folders, each opened once (<see cref="FolderHandle"/>), never on full paths.
/// </summary>
/// <remarks>
/// <para>
/// Change time. The scan records size and modification time, and a writer can put the modification time back
/// (<c>touch -d</c>); nobody can set the change time (ctime): every write, chmod, chown, link or rename moves it.
/// The scan has no change time, so the action's first check records each file's, and every later check (the
/// last right before the rename, unlink or move into the trash) must see the same one.
/// </para>
/// <para>
/// The one change we make ourselves before the last check is the hard link to the kept file: <c>linkat</c> moves
/// the kept file's change time and adds one to its link count. So the kept file is re-checked right before
/// linking, and the change time the link gave it becomes the new baseline only when its link count grew by
/// exactly our link (more or fewer means someone else linked or unlinked it meanwhile, and the last check then
/// stops the action). Nothing else we do before the last check moves either change time: reading does not, a
/// symbolic link or a clone does not touch the kept file, the trash info file is another file. Link counts are
/// not compared otherwise: other names of a file come and go without touching its bytes.
/// </para>
/// </remarks>
[SupportedOSPlatform("linux")]
internal sealed partial class LinkContext : IDisposable
{
    private const string ChangedSinceFirstCheck =
        "changed since this action's first check (same size and modification time, but its change time moved: written, linked, renamed or its permissions changed)";

    private readonly RootHandles? _roots;
    private readonly FolderCache? _folders;
    private FolderHandle? _folder;
    private FolderHandle? _keptFolder;
    private List<FolderHandle>? _ownFolders; // opened for this action alone (no run, or a file root's folder)
    private (long Seconds, uint Nanoseconds)? _keptChanged;
    private (long Seconds, uint Nanoseconds)? _duplicateChanged;
    private uint _keptLinks;

    public LinkContext(DuplicateAction action, LinkerFaults? faults, RootHandles? roots = null, FolderCache? folders = null)
    {
        _roots = roots;
        _folders = folders;
        Action = action;
        Faults = faults;
        KeptPath = action.Kept.Path.ToString();
        DuplicatePath = action.Path.ToString();
        Folder = action.Path.Parent?.ToString() ?? throw ActionStoppedException.Skip("a root cannot be replaced");
        DuplicateName = action.Path.Name;
        KeptFolder = action.Kept.Path.Parent?.ToString() ?? throw ActionStoppedException.Skip("a root cannot be kept");
        KeptName = action.Kept.Path.Name;
    }

    public DuplicateAction Action { get; }

    public LinkerFaults? Faults { get; }

    public string KeptPath { get; }

    public string DuplicatePath { get; }

    /// <summary>The duplicate's folder, where the temporary name is created (for messages; steps use <see cref="FolderFd"/>).</summary>
    public string Folder { get; }

    /// <summary>The duplicate's name in <see cref="Folder"/>.</summary>
    public string DuplicateName { get; }

    public string KeptFolder { get; }

    public string KeptName { get; }

    /// <summary>The duplicate's folder, opened at the action's first use of it.</summary>
    public int FolderFd => (_folder ??= OpenFolder(Action.Path, "duplicate's folder", "left untouched")).Fd;

    /// <summary>The kept file's folder, opened at the action's first use of it.</summary>
    /// <remarks>When both files share a folder (the common case), it is opened once.</remarks>
    public int KeptFolderFd => string.Equals(KeptFolder, Folder, StringComparison.Ordinal)
        ? (_folder ??= OpenFolder(Action.Path, "kept file's folder", "nothing done")).Fd
        : (_keptFolder ??= OpenFolder(Action.Kept.Path, "kept file's folder", "nothing done")).Fd;

    /// <summary>The kept file's status at the last check (mode, owner, times).</summary>
    public StatxBuffer KeptStatus { get; private set; }

    /// <summary>Whether the name <see cref="LinkKeptAs"/> created was found to lead to the kept file itself.</summary>
    public bool LinkedKept { get; private set; }

    /// <summary>The duplicate name's status at the last check (mode, owner, times).</summary>
    public StatxBuffer DuplicateStatus { get; private set; }

    /// <summary>The kept file, open for reading, once <see cref="OpenKept"/> or <see cref="VerifyContent"/> ran.</summary>
    public SafeFileHandle? KeptHandle { get; private set; }

    /// <summary>The kept file must still be the scanned file (identity, size, modification time) with the change time of the first check.</summary>
    public void CheckKeptUnchanged()
    {
        var errno = Libc.LStatAt(KeptFolderFd, KeptName, out var status);
        if (errno != 0)
        {
            throw ActionStoppedException.Skip($"kept file {PathText.Escape(KeptPath)}: {Libc.Message(errno)}; nothing done");
        }

        // No fstat of KeptHandle as well: it was checked at open to be this inode, whose size and times the name just gave.
        var change = Describe(status, Action.Kept);
        if (change is not null)
        {
            throw ActionStoppedException.Skip($"kept file {PathText.Escape(KeptPath)} {change} since the scan; nothing done");
        }

        if (ChangeTimeMoved(status, ref _keptChanged))
        {
            throw ActionStoppedException.Skip($"kept file {PathText.Escape(KeptPath)} {ChangedSinceFirstCheck}; nothing done");
        }

        _keptLinks = status.NLink;
        KeptStatus = status;
    }

    /// <summary>The duplicate's name must still lead to the scanned file, with the change time of the first check.</summary>
    public void CheckDuplicateUnchanged()
    {
        var errno = Libc.LStatAt(FolderFd, DuplicateName, out var status);
        if (errno != 0)
        {
            throw ActionStoppedException.Skip($"duplicate {Libc.Message(errno)}; left untouched");
        }

        var change = Describe(status, Action.Duplicate);
        if (change is not null)
        {
            throw ActionStoppedException.Skip($"duplicate {change} since the scan; left untouched");
        }

        if (ChangeTimeMoved(status, ref _duplicateChanged))
        {
            throw ActionStoppedException.Skip($"duplicate {ChangedSinceFirstCheck}; left untouched");
        }

        FirstCheckForJournal(status);
        DuplicateStatus = status;
    }

    /// <summary>
    /// Links give every name the kept file's owner, group and permissions, and share its future writes:
    /// refused when the two files differ in any of them (as util-linux <c>hardlink</c> does by default).
    /// </summary>
    public void RequireSameOwnerAndMode()
    {
        // The statuses of the two checks just made: no further status calls. A chmod or chown after them moves the
        // change time, which the re-checks before the rename catch.
        var (kept, duplicate) = (KeptStatus, DuplicateStatus);
        if (OwnerAndMode.Difference(kept.Uid, kept.Gid, kept.Mode, duplicate.Uid, duplicate.Gid, duplicate.Mode) is { } difference)
        {
            throw ActionStoppedException.Skip(difference);
        }
    }

    /// <summary>Opens the kept file (without following links) and checks the open file is the scanned one.</summary>
    /// <remarks>
    /// In a run, the kept file stays open for the next action with the same kept file (<see cref="FolderCache.HeldKept"/>):
    /// that action checks the open file by <c>fstat</c> as a new open would be checked (identity, size, modification time,
    /// its own first change time), after its check of the kept name found the same inode, which cannot be reused while open.
    /// </remarks>
    public SafeFileHandle OpenKept()
    {
        if (KeptHandle is null)
        {
            var held = _folders?.HeldKept(Action.Kept);
            KeptHandle = held is not null
                ? Checked(held, Action.Kept, "kept file", "nothing done", ref _keptChanged)
                : OpenChecked(KeptFolderFd, KeptName, KeptPath, Action.Kept, "kept file", "nothing done", ref _keptChanged);
            _folders?.HoldKept(Action.Kept, KeptHandle);
        }

        return KeptHandle;
    }

    /// <summary>Opens the duplicate for FIDEDUPERANGE (without following links) and checks the open file is the scanned one.</summary>
    public SafeFileHandle OpenDuplicate()
    {
        var duplicate = OpenChecked(FolderFd, DuplicateName, null, Action.Duplicate, "duplicate", "left untouched", ref _duplicateChanged);
        try
        {
            CaptureExtras(duplicate);
        }
        catch
        {
            duplicate.Dispose();
            throw;
        }

        return duplicate;
    }

    /// <summary>Compares the duplicate with the kept file byte for byte; throws a skip when they differ.</summary>
    public void VerifyContent()
    {
        var kept = OpenKept();
        using var duplicate = OpenChecked(FolderFd, DuplicateName, DuplicatePath, Action.Duplicate, "duplicate", "nothing done", ref _duplicateChanged);
        CaptureExtras(duplicate);
        ContentVerification.RequireEqual(kept, duplicate, Action.Duplicate.Length);
    }

    /// <summary>
    /// Hard links the kept file as <paramref name="temporary"/> in the duplicate's folder; returns 0 or an errno.
    /// The kept file is checked right before and its new change time taken as the baseline (see the remarks).
    /// </summary>
    public int LinkKeptAs(string temporary)
    {
        CheckKeptUnchanged();
        var links = _keptLinks;
        if (Libc.LinkAt(KeptFolderFd, KeptName, FolderFd, temporary, 0) != 0)
        {
            return Libc.LastErrno;
        }

        LinkedKept = Libc.LStatAt(FolderFd, temporary, out var linked) == 0 && Describe(linked, Action.Kept) is null;
        if (LinkedKept && linked.NLink == links + 1)
        {
            _keptChanged = (linked.CtimeSec, linked.CtimeNsec);
        }

        return 0;
    }

    /// <summary>
    /// The replacement protocol: <paramref name="create"/> makes the replacement under the given fresh temporary name
    /// in the duplicate's folder (returns 0 or an errno); after the fault hook and <paramref name="check"/> (given the
    /// temporary name), both files are re-checked and the temporary name is renamed over the duplicate, both relative to
    /// the folder opened at the first check. Any failure removes the temporary name.
    /// </summary>
    /// <param name="create">Makes the replacement under the temporary name given.</param>
    /// <param name="refuse">The stop for an errno of <paramref name="create"/>.</param>
    /// <param name="check">Checks the replacement before the last re-checks.</param>
    /// <param name="kind">The journal's kind of the step (<c>hardLink</c>, <c>symbolicLink</c>, <c>clone</c>, <c>replace</c>).</param>
    /// <param name="target">A symbolic link's text, for the journal.</param>
    public void ReplaceViaTemporary(Func<string, int> create, Func<int, ActionStoppedException> refuse, Action<string>? check = null, string kind = "replace", string? target = null)
    {
        var temporary = TemporaryNames.NewName();
        var errno = create(temporary);
        if (errno != 0)
        {
            if (errno != Libc.EEXIST)
            {
                RemoveQuietly(temporary); // a partial replacement of ours; EEXIST means the name was never ours
            }

            throw refuse(errno);
        }

        try
        {
            Faults?.BeforeRename?.Invoke(Path.Join(Folder, temporary), DuplicatePath);
            check?.Invoke(temporary);
            CheckKeptUnchanged();
            CheckDuplicateUnchanged();
            if (Journal is not null)
            {
                Begin(kind, Replacement(temporary), target);
            }

            Faults?.AfterLastCheck?.Invoke(DuplicatePath);
            if (Libc.RenameAt2(FolderFd, temporary, FolderFd, DuplicateName, 0) != 0)
            {
                errno = Libc.LastErrno;
                throw ActionStoppedException.Fail($"cannot rename the replacement over the duplicate: {Libc.Message(errno)}; duplicate unchanged");
            }
        }
        catch
        {
            RemoveQuietly(temporary);
            throw;
        }
    }

    public static int Fd(SafeFileHandle handle) => (int)handle.DangerousGetHandle();

    public void Dispose()
    {
        if (_folders is null)
        {
            KeptHandle?.Dispose(); // in a run, the run holds it (and closes it)
        }

        RecordParentAfter();
        Close(_folder);
        Close(_keptFolder);
    }

    /// <summary>What changed between the scan and <paramref name="now"/>, or <see langword="null"/>.</summary>
    internal static string? Describe(in StatxBuffer now, DuplicateFile scanned)
    {
        if (now.IsDirectory)
        {
            return "was replaced by a folder";
        }

        if (now.IsSymbolicLink)
        {
            return "was replaced by a symbolic link";
        }

        if (!now.IsRegularFile)
        {
            return "is no longer a regular file";
        }

        if (now.Device != scanned.Identity.Device || now.Ino != scanned.Identity.FileId)
        {
            return "was replaced by another file";
        }

        if ((long)now.Size != scanned.Length)
        {
            return string.Create(CultureInfo.InvariantCulture, $"changed size from {scanned.Length} to {now.Size} bytes");
        }

        return now.LastWriteTimeUtc != scanned.LastWriteTimeUtc ? "was modified" : null;
    }

    /// <summary>Records the first change time seen; afterwards whether <paramref name="now"/> has another.</summary>
    private static bool ChangeTimeMoved(in StatxBuffer now, ref (long Seconds, uint Nanoseconds)? baseline)
    {
        var time = (now.CtimeSec, now.CtimeNsec);
        baseline ??= time;
        return baseline != time;
    }

    /// <summary>
    /// Opens the folder of <paramref name="file"/> from the scanned root that holds it (or that is the file), following
    /// no link below the root (see <see cref="FolderHandle.TryOpenBeneath"/>); in a run, the run's open folder when it
    /// has one (<see cref="FolderCache"/>). A file root's folder lies under no folder root: it is opened for this action
    /// alone and closed with it.
    /// </summary>
    private FolderHandle OpenFolder(Paths.AbsolutePath file, string role, string consequence)
    {
        var folder = file.Parent!;
        var leased = _folders is not null && ScanRoot.Holding(Action.Group.Roots, folder) is not null;
        var handle = (leased
            ? _folders!.Lease(Action.Group.Roots, folder, out var problem)
            : FolderHandle.TryOpenBeneath(Action.Group.Roots, folder, out problem, _roots, file))
            ?? throw ActionStoppedException.Skip($"{role} {folder.ToDisplayString()}: {problem}; {consequence}");
        if (!leased)
        {
            (_ownFolders ??= []).Add(handle);
        }

        return handle;
    }

    /// <summary>A folder of this action's own is closed; one of the run's is given back.</summary>
    private void Close(FolderHandle? folder)
    {
        if (folder is null)
        {
            return;
        }

        if (_folders is null || (_ownFolders?.Contains(folder) ?? false))
        {
            folder.Dispose();
        }
        else
        {
            _folders!.Release(folder);
        }
    }

    private void RemoveQuietly(string temporary)
    {
        if (TemporaryNames.IsTemporaryName(temporary) && _folder is not null)
        {
            _ = Libc.UnlinkAt(_folder.Fd, temporary, 0);
        }
    }

    /// <summary>Opens <paramref name="name"/> in the folder <paramref name="dirfd"/> without following a link and checks the open file.</summary>
    private static SafeFileHandle OpenChecked(int dirfd, string name, string? path, DuplicateFile scanned, string role, string consequence, ref (long, uint)? changed)
    {
        var fd = RootedTree.OpenFile(dirfd, name);
        if (fd < 0)
        {
            var errno = Libc.LastErrno;
            throw ActionStoppedException.Skip($"cannot open the {role}{(path is null ? string.Empty : " " + PathText.Escape(path))}: {Libc.Message(errno)}; {consequence}");
        }

        return Checked(new SafeFileHandle((nint)fd, ownsHandle: true), scanned, role, consequence, ref changed);
    }

    /// <summary>The open file must still be the scanned file, with the change time of the action's first check; otherwise it is closed.</summary>
    private static SafeFileHandle Checked(SafeFileHandle handle, DuplicateFile scanned, string role, string consequence, ref (long, uint)? changed)
    {
        var rc = Libc.FStat(Fd(handle), out var status);
        var change = rc != 0 ? Libc.Message(rc) : Describe(status, scanned);
        if (change is null && ChangeTimeMoved(status, ref changed))
        {
            handle.Dispose();
            throw ActionStoppedException.Skip($"{role} {ChangedSinceFirstCheck}; {consequence}");
        }

        if (change is not null)
        {
            handle.Dispose();
            throw ActionStoppedException.Skip($"{role} {change} since the scan; {consequence}");
        }

        return handle;
    }
}
