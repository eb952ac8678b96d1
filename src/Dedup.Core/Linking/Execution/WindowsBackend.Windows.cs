// Compiled on every platform; hard links run under Wine 8 by .ci/wine-cli.sh and the Windows tests (not on Windows
// proper); symbolic links and ReFS block cloning are untested on Windows proper (Wine has neither).
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Operations;
using Dedup.Core.Paths;
using static Dedup.Core.Topology.WindowsStorageLayout;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Windows: hard links, symbolic links and ReFS clones with the Linux protocol (docs/linking.md), on paths: the
/// replacement is made under a temporary name in the duplicate's folder, checked to be what it should be, both files
/// re-checked, then MoveFileExW over the duplicate (one rename in one folder; the duplicate is never deleted first).
/// Any failure removes the temporary name. Delete and the Recycle Bin are the portable ones.
/// </summary>
[SupportedOSPlatform("windows")]
internal sealed class WindowsBackend(PortableContext context, LinkerFaults? faults, SystemTrashMove moveToSystemTrash)
    : PortableBackend(context, faults, moveToSystemTrash)
{
    /// <summary>Why a symbolic link is refused without the privilege (also the plan's wording).</summary>
    internal const string SymbolicLinkPrivilegeMissing =
        "creating symbolic links needs Developer Mode or the SeCreateSymbolicLinkPrivilege (run elevated); duplicate unchanged (no other kind of link is made instead)";

    public override void ReplaceWithHardLink() => ReplaceViaTemporary(
        "hardLink",
        null,
        (temporary, folder) =>
        {
            if (!Kernel32.CreateHardLink(WithLongPathPrefix(temporary), WithLongPathPrefix(Context.KeptPath), 0))
            {
                var error = Marshal.GetLastPInvokeError();
                throw error switch
                {
                    Kernel32.ERROR_NOT_SAME_DEVICE => ActionStoppedException.Skip("kept file and duplicate are on different volumes; a hard link cannot cross volumes (no other kind of link is made instead)"),
                    Kernel32.ERROR_TOO_MANY_LINKS => ActionStoppedException.Skip("the kept file has the most hard links its file system allows (1024 on NTFS)"),
                    _ => ActionStoppedException.Fail($"cannot create a hard link in {PathText.Escape(folder)}: {Marshal.GetPInvokeErrorMessage(error)}; duplicate unchanged"),
                };
            }
        },
        temporary =>
        {
            // The new name must lead to the kept file itself, not to whatever its path held when the link was made.
            if (!WindowsFileIds.TryGet(temporary, followLink: false, out var linked, out _, out _) || linked != Context.KeptIdentity)
            {
                throw ActionStoppedException.Skip("the kept file's path was replaced while linking; nothing done");
            }
        });

    public override void ReplaceWithSymbolicLink(bool relative)
    {
        var context = Context;
        var duplicateFolder = System.IO.Path.GetDirectoryName(context.DuplicatePath)!;
        var target = relative ? System.IO.Path.GetRelativePath(duplicateFolder, context.KeptPath) : context.KeptPath;
        ReplaceViaTemporary(
            "symbolicLink",
            target,
            (temporary, folder) =>
            {
                var name = WithLongPathPrefix(temporary);
                var created = Kernel32.CreateSymbolicLink(name, target, Kernel32.SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE);
                var error = created ? 0 : Marshal.GetLastPInvokeError();
                if (error == Kernel32.ERROR_INVALID_PARAMETER)
                {
                    // Windows before 10 1703 does not know the flag; elevated processes still hold the privilege there.
                    created = Kernel32.CreateSymbolicLink(name, target, 0);
                    error = created ? 0 : Marshal.GetLastPInvokeError();
                }

                if (!created)
                {
                    throw error == Kernel32.ERROR_PRIVILEGE_NOT_HELD
                        ? ActionStoppedException.Skip(SymbolicLinkPrivilegeMissing)
                        : ActionStoppedException.Fail($"cannot create a symbolic link in {PathText.Escape(folder)}: {Marshal.GetPInvokeErrorMessage(error)}; duplicate unchanged");
                }
            },
            temporary =>
            {
                // The new name must be a link of its own, and following it must reach the kept file.
                if (!WindowsFileIds.TryGet(temporary, followLink: false, out var itself, out _, out var error))
                {
                    throw error is Kernel32.ERROR_FILE_NOT_FOUND or Kernel32.ERROR_PATH_NOT_FOUND
                        ? ActionStoppedException.Skip("the system reported the symbolic link created, but there is none (Wine's CreateSymbolicLinkW does this); duplicate unchanged")
                        : ActionStoppedException.Fail($"cannot examine the new symbolic link: {Marshal.GetPInvokeErrorMessage(error)}; duplicate unchanged");
                }

                if (itself == context.KeptIdentity
                    || !WindowsFileIds.TryGet(temporary, followLink: true, out var followed, out _, out _) || followed != context.KeptIdentity)
                {
                    throw ActionStoppedException.Fail($"the symbolic link '{PathText.Escape(target)}' does not lead to the kept file; duplicate unchanged");
                }
            });
    }

    public override void ReplaceWithClone()
    {
        var context = Context;
        FileIdentity? made = null;
        ReplaceViaTemporary(
            "clone",
            null,
            (temporary, folder) => made = BlockCloneOperation.Create(context, temporary, folder),
            temporary =>
            {
                // The name must still hold the clone that was verified (nothing swapped in between close and rename).
                if (!WindowsFileIds.TryGet(temporary, followLink: false, out var now, out _, out _) || now != made)
                {
                    throw ActionStoppedException.Skip("the clone's temporary name was replaced before the rename; duplicate unchanged");
                }
            });
    }

    /// <summary>
    /// Creates the replacement under a new temporary name with <paramref name="create"/> (which leaves nothing behind when
    /// it throws), checks it with <paramref name="check"/>, re-checks both files, writes the journal's <c>begun</c> line
    /// (<paramref name="kind"/>, the replacement as <c>after</c>, a link's <paramref name="target"/>) and renames it over the duplicate.
    /// </summary>
    private void ReplaceViaTemporary(string kind, string? target, Action<string, string> create, Action<string> check)
    {
        var context = Context;
        var folder = System.IO.Path.GetDirectoryName(context.DuplicatePath)!;
        var temporary = System.IO.Path.Combine(folder, TemporaryNames.NewName());

        context.CheckKeptUnchanged(); // right before creating, as on Linux
        create(temporary, folder);
        try
        {
            Faults?.BeforeRename?.Invoke(temporary, context.DuplicatePath);
            check(temporary);
            context.CheckKeptUnchanged();
            context.CheckDuplicateUnchanged();
            Faults?.AfterLastCheck?.Invoke(context.DuplicatePath);
            context.Begin(kind, temporary, target);
            if (!Kernel32.MoveFileEx(WithLongPathPrefix(temporary), WithLongPathPrefix(context.DuplicatePath), Kernel32.MOVEFILE_REPLACE_EXISTING | Kernel32.MOVEFILE_WRITE_THROUGH))
            {
                throw ActionStoppedException.Fail($"cannot rename the replacement over the duplicate: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}; duplicate unchanged");
            }
        }
        catch
        {
            TryDelete(temporary);
            throw;
        }
    }

    /// <summary>Removes a temporary name: a link, or a clone whose data the kept file still holds, so no data is lost.</summary>
    internal static void TryDelete(string temporary)
    {
        try
        {
            File.Delete(temporary);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Left behind; its name matches the temporary pattern.
        }
    }
}
