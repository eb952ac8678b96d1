using Dedup.Core.Interop;
using System.Globalization;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking;

/// <summary>
/// One action being applied: the re-checks against the scan, the byte verification and the
/// temporary-name-then-rename protocol shared by the linkers.
/// </summary>
internal sealed class LinkContext : IDisposable
{
    public LinkContext(DuplicateAction action, LinkerFaults? faults)
    {
        Action = action;
        Faults = faults;
        KeptPath = action.Kept.Path.ToString();
        DuplicatePath = action.Path.ToString();
        Folder = action.Path.Parent?.ToString() ?? throw ActionStoppedException.Skip("a root cannot be replaced");
    }

    public DuplicateAction Action { get; }

    public LinkerFaults? Faults { get; }

    public string KeptPath { get; }

    public string DuplicatePath { get; }

    /// <summary>The duplicate's folder, where the temporary name is created.</summary>
    public string Folder { get; }

    /// <summary>The duplicate name's status at the last check (mode, owner, times).</summary>
    public StatxBuffer DuplicateStatus { get; private set; }

    /// <summary>The kept file, open for reading, once <see cref="OpenKept"/> or <see cref="VerifyContent"/> ran.</summary>
    public SafeFileHandle? KeptHandle { get; private set; }

    /// <summary>The kept file must still be the scanned file: same identity, size and modification time.</summary>
    public void CheckKeptUnchanged()
    {
        var errno = LinkNative.LStat(KeptPath, out var status);
        if (errno != 0)
        {
            throw ActionStoppedException.Skip($"kept file {KeptPath}: {LinkNative.Message(errno)}; nothing done");
        }

        var change = Describe(status, Action.Kept);
        if (change is null && KeptHandle is not null && (errno = LinkNative.FStat(Fd(KeptHandle), out var opened)) == 0)
        {
            change = Describe(opened, Action.Kept);
        }

        if (change is not null)
        {
            throw ActionStoppedException.Skip($"kept file {KeptPath} {change} since the scan; nothing done");
        }
    }

    /// <summary>The duplicate's name must still lead to the scanned file: same identity, size and modification time.</summary>
    public void CheckDuplicateUnchanged()
    {
        var errno = LinkNative.LStat(DuplicatePath, out var status);
        if (errno != 0)
        {
            throw ActionStoppedException.Skip($"duplicate {LinkNative.Message(errno)}; left untouched");
        }

        var change = Describe(status, Action.Duplicate);
        if (change is not null)
        {
            throw ActionStoppedException.Skip($"duplicate {change} since the scan; left untouched");
        }

        DuplicateStatus = status;
    }

    /// <summary>
    /// Links give every name the kept file's owner, group and permissions, and share its future writes:
    /// refused when the two files differ in any of them (as util-linux <c>hardlink</c> does by default).
    /// </summary>
    public void RequireSameOwnerAndMode()
    {
        if (LinkNative.LStat(KeptPath, out var kept) != 0 || LinkNative.LStat(DuplicatePath, out var duplicate) != 0)
        {
            return; // the unchanged-checks that follow report the missing file
        }

        const int Permissions = 0xFFF; // 07777
        if (kept.Uid != duplicate.Uid || kept.Gid != duplicate.Gid || (kept.Mode & Permissions) != (duplicate.Mode & Permissions))
        {
            throw ActionStoppedException.Skip(
                $"owner, group or permissions differ (kept {kept.Uid}:{kept.Gid} {Convert.ToString(kept.Mode & Permissions, 8)}, duplicate {duplicate.Uid}:{duplicate.Gid} {Convert.ToString(duplicate.Mode & Permissions, 8)}); a link would give the duplicate's names the kept file's and share its future writes");
        }
    }

    /// <summary>Opens the kept file (without following links) and checks the open file is the scanned one.</summary>
    public SafeFileHandle OpenKept()
    {
        KeptHandle ??= OpenChecked(KeptPath, Action.Kept, "kept file");
        return KeptHandle;
    }

    /// <summary>Compares the duplicate with the kept file byte for byte; throws a skip when they differ.</summary>
    public void VerifyContent()
    {
        var kept = OpenKept();
        using var duplicate = OpenChecked(DuplicatePath, Action.Duplicate, "duplicate");
        ContentVerification.RequireEqual(kept, duplicate, Action.Duplicate.Length);
    }

    /// <summary>
    /// The replacement protocol: <paramref name="create"/> makes the replacement under a fresh temporary name in
    /// the duplicate's folder (returns 0 or an errno); after the fault hook and <paramref name="check"/>, both files
    /// are re-checked and the temporary name is renamed over the duplicate. Any failure removes the temporary name.
    /// </summary>
    public void ReplaceViaTemporary(Func<string, int> create, Func<int, ActionStoppedException> refuse, Action<string>? check = null)
    {
        var temporary = TemporaryFiles.NewPath(Folder);
        var errno = create(temporary);
        if (errno != 0)
        {
            if (errno != LinkNative.EEXIST)
            {
                RemoveQuietly(temporary); // a partial replacement of ours; EEXIST means the name was never ours
            }

            throw refuse(errno);
        }

        try
        {
            Faults?.BeforeRename?.Invoke(temporary, DuplicatePath);
            check?.Invoke(temporary);
            CheckKeptUnchanged();
            CheckDuplicateUnchanged();
            if (LinkNative.Rename(temporary, DuplicatePath) != 0)
            {
                errno = LinkNative.LastErrno;
                throw ActionStoppedException.Fail($"cannot rename the replacement over the duplicate: {LinkNative.Message(errno)}; duplicate unchanged");
            }
        }
        catch
        {
            RemoveQuietly(temporary);
            throw;
        }
    }

    public static int Fd(SafeFileHandle handle) => (int)handle.DangerousGetHandle();

    public void Dispose() => KeptHandle?.Dispose();

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

    private static void RemoveQuietly(string temporary)
    {
        if (TemporaryFiles.IsTemporaryName(System.IO.Path.GetFileName(temporary)))
        {
            _ = LinkNative.Unlink(temporary);
        }
    }

    private static SafeFileHandle OpenChecked(string path, DuplicateFile scanned, string role)
    {
        var flags = LinkNative.O_RDONLY | LinkNative.O_NOFOLLOW | LinkNative.O_NONBLOCK | LinkNative.O_CLOEXEC;
        var fd = LinkNative.Open(path, flags, 0);
        if (fd < 0)
        {
            var errno = LinkNative.LastErrno;
            throw ActionStoppedException.Skip($"cannot open the {role} {path}: {LinkNative.Message(errno)}; nothing done");
        }

        var handle = new SafeFileHandle(fd, ownsHandle: true);
        var rc = LinkNative.FStat(fd, out var status);
        var change = rc != 0 ? LinkNative.Message(rc) : Describe(status, scanned);
        if (change is not null)
        {
            handle.Dispose();
            throw ActionStoppedException.Skip($"{role} {change} since the scan; nothing done");
        }

        return handle;
    }
}
