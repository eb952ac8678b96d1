using System.Diagnostics.CodeAnalysis;
using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking;

/// <summary>
/// One action being applied, handed to <see cref="Linker.Apply"/>: the duplicate and the kept file, both already
/// re-checked against the scan and compared byte for byte, and the operations that change the duplicate. Each
/// operation re-checks both files once more right before it changes anything, works on the files that were
/// compared (never on a path that could have been swapped), and rolls back on failure; see <c>docs/linking.md</c>.
/// </summary>
/// <remarks>
/// A linker performs exactly one operation per action (a second one fails the action), or refuses with
/// <see cref="Skip"/>; returning without either leaves the duplicate as it was and the action Skipped. Hard and
/// symbolic links, clones, dedupe and <see cref="ReplaceWithFile"/> are implemented for Linux, hard and symbolic
/// links and ReFS clones for Windows too; elsewhere they end the action as Skipped, and <see cref="Delete"/> and <see cref="MoveToTrash()"/> work everywhere.
/// </remarks>
public sealed class LinkerContext
{
    private readonly ILinkerBackend _backend;
    private string? _performed;

    /// <summary>An action carried out by <paramref name="backend"/>, the platform's operations the executor chose for the run.</summary>
    internal LinkerContext(DuplicateAction action, ILinkerBackend backend)
    {
        Action = action;
        _backend = backend;
    }

    /// <summary>The planned action: the name acted on, the duplicate and the kept file.</summary>
    public DuplicateAction Action { get; }

    /// <summary>Whether an operation was carried out (the executor reports an action without one as skipped).</summary>
    internal bool Performed => _performed is not null;

    /// <summary>Replaces the duplicate's name with a hard link to the kept file (same file system; same owner, group and permissions).</summary>
    public void ReplaceWithHardLink() => Perform("hard link", _backend.ReplaceWithHardLink);

    /// <summary>Replaces the duplicate's name with a symbolic link to the kept file (same owner, group and permissions).</summary>
    /// <param name="relative">Whether the link's target is relative to the duplicate's folder (default) or absolute.</param>
    public void ReplaceWithSymbolicLink(bool relative = true) => Perform("symbolic link", () => _backend.ReplaceWithSymbolicLink(relative));

    /// <summary>Replaces the duplicate with a copy-on-write clone of the kept file that keeps the duplicate's permissions, owner, extended attributes and times.</summary>
    public void ReplaceWithClone() => Perform("clone", _backend.ReplaceWithClone);

    /// <summary>Asks the kernel to share the duplicate's extents with the kept file after comparing them under lock (FIDEDUPERANGE).</summary>
    public void DedupeWithKept() => Perform("dedupe", _backend.DedupeWithKept);

    /// <summary>Deletes the duplicate's name permanently.</summary>
    public void Delete() => Perform("delete", _backend.Delete);

    /// <summary>
    /// Moves the duplicate to the trash: the freedesktop.org trash on Linux, the Recycle Bin on Windows, the Trash on
    /// macOS.
    /// </summary>
    public void MoveToTrash() => Perform("move to trash", () => _backend.MoveToTrash(homeTrash: null));

    /// <summary>
    /// Replaces the duplicate with a file of your own (a stub, a pointer into a backup store): <paramref name="write"/>
    /// writes its content into a new file under a temporary name in the duplicate's folder, which gets the
    /// duplicate's permissions (and owner, as root), is flushed to disk, and is renamed over the duplicate after the
    /// last re-check. If <paramref name="write"/> throws, the new file is removed and the duplicate is unchanged.
    /// </summary>
    /// <param name="write">Writes the replacement's content.</param>
    public void ReplaceWithFile(Action<Stream> write)
    {
        ArgumentNullException.ThrowIfNull(write);
        Perform("replace with a file", () => _backend.ReplaceWithFile(write));
    }

    /// <summary>Refuses the action: nothing is changed and the action is reported as skipped with <paramref name="reason"/>.</summary>
    /// <param name="reason">Why, for the report.</param>
    [DoesNotReturn]
    public void Skip(string reason)
    {
        ArgumentException.ThrowIfNullOrEmpty(reason);
        throw ActionStoppedException.Skip(reason);
    }

    /// <summary>The test seam of the built-in trash linker: the home trash folder to use.</summary>
    internal void MoveToTrash(string? homeTrash) => Perform("move to trash", () => _backend.MoveToTrash(homeTrash));

    private void Perform(string operation, Action act)
    {
        if (_performed is not null)
        {
            throw new InvalidOperationException($"A linker performs one operation per action; '{operation}' was asked after '{_performed}'.");
        }

        _performed = operation;
        act();
    }
}
