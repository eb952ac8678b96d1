using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Operations;

/// <summary>Replaces the duplicate with a hard link to the kept file: link under a temporary name, then rename.</summary>
[SupportedOSPlatform("linux")]
internal static class HardLinkOperation
{
    public static void Apply(LinkContext context)
    {
        context.ReplaceViaTemporary(
            context.LinkKeptAs,
            errno => errno switch
            {
                Libc.EXDEV => ActionStoppedException.Skip("kept file and duplicate are on different file systems (EXDEV); a hard link cannot cross devices (no other kind of link is made instead)"),
                Libc.EMLINK => ActionStoppedException.Skip("the kept file has the most hard links its file system allows (EMLINK)"),
                _ => ActionStoppedException.Fail($"cannot create a hard link in {PathText.Escape(context.Folder)}: {Libc.Message(errno)}; duplicate unchanged"),
            },
            _ =>
            {
                // The new name must lead to the kept file itself, not to whatever its path holds now (LinkKeptAs looked).
                if (!context.LinkedKept)
                {
                    throw ActionStoppedException.Skip("the kept file's path was replaced while linking; nothing done");
                }
            },
            "hardLink");
    }
}
