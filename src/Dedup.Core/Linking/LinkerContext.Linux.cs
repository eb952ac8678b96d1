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

    private LinkContext Linux(string operation) => _linux ?? throw LinuxOnly(operation);

    private void ReplaceWithHardLinkCore()
    {
        var context = Linux("a hard link");
        context.RequireSameOwnerAndMode();
        HardLinkOperation.Apply(context);
    }

    private void ReplaceWithSymbolicLinkCore(bool relative)
    {
        var context = Linux("a symbolic link");
        context.RequireSameOwnerAndMode();
        SymbolicLinkOperation.Apply(context, relative);
    }

    private void ReplaceWithCloneCore() => CloneOperation.Apply(Linux("a clone"));

    private void DedupeWithKeptCore() => DedupeOperation.Apply(Linux("dedupe"));

    private void ReplaceWithFileCore(Action<Stream> write) => ReplaceWithFileOperation.Apply(Linux("replacing with a file"), write);

    private void DeleteCore()
    {
        if (_linux is not null)
        {
            DeleteOperation.Apply(_linux);
        }
        else
        {
            DeletePortable();
        }
    }

    private void MoveToTrashCore(string? homeTrash)
    {
        if (_linux is not null)
        {
            TrashOperation.Apply(_linux, homeTrash);
        }
        else
        {
            MoveToTrashPortable();
        }
    }
}
