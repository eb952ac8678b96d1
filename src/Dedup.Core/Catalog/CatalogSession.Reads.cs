using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;

namespace Dedup.Core.Catalog;

/// <summary>The session's reads of the catalog: the machine's stored digests, and the groups of its contents.</summary>
internal sealed partial class CatalogSession
{
    /// <summary>
    /// The stamps with a stored digest: from the digests themselves when the catalog gives them (their contents are kept
    /// to name this machine's files in the groups), else from <see cref="FileCatalog.GetDigestedFilesAsync"/>.
    /// </summary>
    private async Task<IReadOnlyCollection<FileStamp>> KnownAsync(CancellationToken cancellationToken)
    {
        if (await catalog.GetDigestsAsync(machine, cancellationToken).ConfigureAwait(false) is not { } digests)
        {
            return await catalog.GetDigestedFilesAsync(machine, cancellationToken).ConfigureAwait(false);
        }

        var stamps = new HashSet<FileStamp>();
        foreach (var digest in digests)
        {
            stamps.Add(digest.Stamp);
            _own.AddStored(digest);
        }

        Volatile.Write(ref _byContent, true);
        return stamps;
    }

    /// <summary>The groups of the machine's files with a stored digest, as the catalog holds them now; <see langword="null"/> for a first scan (none).</summary>
    private async Task<IReadOnlyList<CatalogGroup>?> ReadEarlyAsync(ScanContext context, Task<IReadOnlyCollection<FileStamp>> known, CancellationToken cancellationToken) =>
        (await known.ConfigureAwait(false)).Count == 0
            ? null
            : await ReadAsync(context, contents: null, cancellationToken).ConfigureAwait(false);

    /// <summary>
    /// The catalog's groups of the machine's stored contents, or of <paramref name="contents"/>: only the other machines'
    /// files when the scan names its own (<see cref="CatalogOwnFiles"/>).
    /// </summary>
    private async Task<IReadOnlyList<CatalogGroup>> ReadAsync(ScanContext context, IReadOnlyCollection<CatalogDigest>? contents, CancellationToken cancellationToken)
    {
        Action<string> skipped = message => Skipped(context, message);
        var read = Volatile.Read(ref _byContent) ? catalog.FindFilesOnOtherMachinesAsync(machine, contents, skipped, cancellationToken)
            : contents is null ? catalog.FindGroupsAcrossMachinesAsync(machine, skipped, cancellationToken)
            : catalog.FindGroupsAcrossMachinesAsync(machine, contents, skipped, cancellationToken);
        return CatalogGroupMerge.OnePerContent(await read.ConfigureAwait(false));
    }

    /// <summary>
    /// The catalog's groups across machines: on a rescan, those read at the barrier with those of the contents hashed
    /// since; else one read of them all, now that this scan's digests are stored.
    /// </summary>
    /// <remarks>The rows' index is read (the merge's stamp check) only once <c>prepared</c>, the join's indexes being made (<see cref="CatalogGroupJoin.Prepare"/>), is done.</remarks>
    private async Task<IReadOnlyList<CatalogGroup>> FindGroupsAsync(ScanContext context, CatalogRows rows, IReadOnlyCollection<FileStamp> kept, Task prepared, CancellationToken cancellationToken)
    {
        if ((_early is null ? null : await _early.ConfigureAwait(false)) is not { } early)
        {
            return await ReadAsync(context, contents: null, cancellationToken).ConfigureAwait(false);
        }

        CatalogDigest[] made;
        lock (_made)
        {
            made = [.. _made];
        }

        var late = made.Length == 0 ? [] : await ReadAsync(context, made, cancellationToken).ConfigureAwait(false);
        await prepared.ConfigureAwait(false);
        // Read by content, the groups hold no file of this machine: the join names them (CatalogOwnFiles).
        return CatalogGroupMerge.Merge(machine, early, made, late, _byContent ? null : stamp => kept.Contains(stamp) && rows.Contains(stamp));
    }

    /// <summary>
    /// A row the catalog cannot use (a hand-edited catalog) is named and left out: an error of the scan (no path: the
    /// rows are the catalog's), once however many reads name it, which goes on with the other machines' groups.
    /// </summary>
    private void Skipped(ScanContext context, string message)
    {
        lock (_skipped)
        {
            if (!_skipped.Add(message))
            {
                return;
            }
        }

        context.Errors.Report(string.Empty, ScanErrorKind.IOError, message);
    }
}
