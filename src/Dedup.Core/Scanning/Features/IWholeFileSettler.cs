using Dedup.Core.IO;

namespace Dedup.Core.Scanning.Features;

/// <summary>
/// Settles a whole-file candidate set from what it already knows, reading only what it must (the hash cache): declared
/// by a feature (<see cref="ScanFeature.Settler"/>) and asked once per set by <see cref="WholeFileStage"/>.
/// </summary>
internal interface IWholeFileSettler
{
    /// <summary>The groups of <paramref name="files"/>, or <see langword="null"/> when it cannot settle sets (then the set is compared as without it).</summary>
    /// <param name="stage">Compares what the settler cannot settle (<see cref="WholeFileStage.CompareFiles"/>).</param>
    /// <param name="files">The set's files.</param>
    /// <param name="size">Their size.</param>
    /// <param name="readers">Further readers of the set's device.</param>
    /// <param name="rotational">Whether the set is on a rotational disk.</param>
    /// <param name="enterDevices">Takes the set's device tokens: to be called before the first read only, so a set settled without reading waits for no reader.</param>
    /// <param name="cancellationToken">Cancels reads.</param>
    List<SettledGroup>? TrySettle(
        WholeFileStage stage, List<FileNode> files, long size, ReaderFanOut readers, bool rotational, Func<IDisposable> enterDevices, CancellationToken cancellationToken);
}
