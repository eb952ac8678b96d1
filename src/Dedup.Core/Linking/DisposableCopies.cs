using Dedup.Core.Topology;

namespace Dedup.Core.Linking;

/// <summary>
/// The planner's question of a <see cref="TrashLocator"/> (which, in <c>Topology</c>, knows paths but not the results
/// that hold them): whether a copy is in a trash folder or is one of our temporary files, so never the one kept.
/// </summary>
internal static class DisposableCopies
{
    public static bool IsDisposable(this TrashLocator trash, DuplicateFile file) => trash.IsDisposableFile(file.Path);
}
