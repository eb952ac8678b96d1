using System.Runtime.Versioning;
using Dedup.Core.Linking.Operations;

namespace Dedup.Core.Linking.Execution;

/// <summary>Linux: every operation works relative to the folders <see cref="LinkContext"/> opened from the scanned roots.</summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxBackend(LinkContext context) : ILinkerBackend
{
    public void ReplaceWithHardLink()
    {
        context.RequireSameOwnerAndMode();
        HardLinkOperation.Apply(context);
    }

    public void ReplaceWithSymbolicLink(bool relative)
    {
        context.RequireSameOwnerAndMode();
        SymbolicLinkOperation.Apply(context, relative);
    }

    public void ReplaceWithClone() => CloneOperation.Apply(context);

    public void DedupeWithKept() => DedupeOperation.Apply(context);

    public void ReplaceWithFile(Action<Stream> write) => ReplaceWithFileOperation.Apply(context, write);

    public void Delete() => DeleteOperation.Apply(context);

    public void MoveToTrash(string? homeTrash) => TrashOperation.Apply(context, homeTrash);
}
