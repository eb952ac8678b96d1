using System.Runtime.Versioning;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Operations;

namespace Dedup.Core.Linking;

// Linux: every operation works relative to the folders LinkContext opened from the scanned roots.
public sealed partial class LinkerContext
{
    private readonly LinkContext? _linux;

    internal LinkerContext(DuplicateAction action, LinkContext linux)
    {
        Action = action;
        _linux = linux;
    }

    /// <summary>Whether this action runs on Linux with a <see cref="LinkContext"/> (the analyzer's guard for the Linux-only calls below).</summary>
    [SupportedOSPlatformGuard("linux")]
    private bool OnLinux => OperatingSystem.IsLinux() && _linux is not null;

    [SupportedOSPlatform("linux")]
    private LinkContext Linux => _linux!;

    private void ReplaceWithHardLinkCore()
    {
        // Stryker disable once Equality,Statement,Block : the Windows branch (the Wine test project runs it)
        if (OperatingSystem.IsWindows() && _portable is not null)
        {
            ReplaceWithHardLinkWindows();
            return;
        }

        if (!OnLinux)
        {
            throw LinuxOnly("a hard link");
        }

        var context = Linux;
        context.RequireSameOwnerAndMode();
        HardLinkOperation.Apply(context);
    }

    private void ReplaceWithSymbolicLinkCore(bool relative)
    {
        // Stryker disable once Equality,Statement,Block : the Windows branch (the Wine test project runs it)
        if (OperatingSystem.IsWindows() && _portable is not null)
        {
            ReplaceWithSymbolicLinkWindows(relative);
            return;
        }

        if (!OnLinux)
        {
            throw LinuxOnly("a symbolic link");
        }

        var context = Linux;
        context.RequireSameOwnerAndMode();
        SymbolicLinkOperation.Apply(context, relative);
    }

    private void ReplaceWithCloneCore()
    {
        // Stryker disable once Equality,Statement,Block : the Windows branch (the Wine test project runs it)
        if (OperatingSystem.IsWindows() && _portable is not null)
        {
            ReplaceWithCloneWindows();
            return;
        }

        if (!OnLinux)
        {
            throw LinuxOnly("a clone");
        }

        CloneOperation.Apply(Linux);
    }

    private void DedupeWithKeptCore()
    {
        if (!OnLinux)
        {
            throw LinuxOnly("dedupe");
        }

        DedupeOperation.Apply(Linux);
    }

    private void ReplaceWithFileCore(Action<Stream> write)
    {
        if (!OnLinux)
        {
            throw LinuxOnly("replacing with a file");
        }

        ReplaceWithFileOperation.Apply(Linux, write);
    }

    private void DeleteCore()
    {
        if (OnLinux)
        {
            DeleteOperation.Apply(Linux);
        }
        else
        {
            DeletePortable();
        }
    }

    private void MoveToTrashCore(string? homeTrash)
    {
        if (OnLinux)
        {
            TrashOperation.Apply(Linux, homeTrash);
        }
        else
        {
            MoveToTrashPortable();
        }
    }
}
