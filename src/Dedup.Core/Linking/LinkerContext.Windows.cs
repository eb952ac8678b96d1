// Compiled on every platform; run under Wine 8 by .ci/wine-cli.sh (not on Windows proper).
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using static Dedup.Core.Topology.WindowsStorageLayout;

namespace Dedup.Core.Linking;

// Windows: hard links with the Linux protocol (docs/linking.md), on paths: CreateHardLinkW under a temporary name in
// the duplicate's folder, the new name checked to be the kept file, both files re-checked, then MoveFileExW over the
// duplicate (one rename in one folder; the duplicate is never deleted first). Any failure removes the temporary name.
public sealed partial class LinkerContext
{
    [SupportedOSPlatform("windows")]
    private void ReplaceWithHardLinkWindows()
    {
        var context = _portable!;
        var folder = System.IO.Path.GetDirectoryName(context.DuplicatePath)!;
        var temporary = System.IO.Path.Combine(folder, TemporaryFiles.NewName());

        context.CheckKeptUnchanged(); // right before linking, as on Linux
        if (!Kernel32.CreateHardLink(WithLongPathPrefix(temporary), WithLongPathPrefix(context.KeptPath), 0))
        {
            var error = Marshal.GetLastPInvokeError();
            throw error switch
            {
                Kernel32.ERROR_NOT_SAME_DEVICE => ActionStoppedException.Skip("kept file and duplicate are on different volumes; a hard link cannot cross volumes (no other kind of link is made instead)"),
                Kernel32.ERROR_TOO_MANY_LINKS => ActionStoppedException.Skip("the kept file has the most hard links its file system allows (1024 on NTFS)"),
                _ => ActionStoppedException.Fail($"cannot create a hard link in {PathText.Escape(folder)}: {Marshal.GetPInvokeErrorMessage(error)}; duplicate unchanged"),
            };
        }

        try
        {
            _faults?.BeforeRename?.Invoke(temporary, context.DuplicatePath);

            // The new name must lead to the kept file itself, not to whatever its path held when the link was made.
            if (!WindowsFileIds.TryGet(temporary, followLink: false, out var linked, out _, out _) || linked != context.KeptIdentity)
            {
                throw ActionStoppedException.Skip("the kept file's path was replaced while linking; nothing done");
            }

            context.CheckKeptUnchanged();
            context.CheckDuplicateUnchanged();
            _faults?.AfterLastCheck?.Invoke(context.DuplicatePath);
            if (!Kernel32.MoveFileEx(WithLongPathPrefix(temporary), WithLongPathPrefix(context.DuplicatePath), Kernel32.MOVEFILE_REPLACE_EXISTING | Kernel32.MOVEFILE_WRITE_THROUGH))
            {
                throw ActionStoppedException.Fail($"cannot rename the replacement over the duplicate: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}; duplicate unchanged");
            }
        }
        catch
        {
            try
            {
                File.Delete(temporary); // only a name of the kept file: removing it changes no data
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // Left behind; its name matches the temporary pattern.
            }

            throw;
        }
    }
}
