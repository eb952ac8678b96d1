using Dedup.Core.Enumeration;

namespace Dedup.Core.Catalog;

/// <summary>
/// A store of the files of many machines, plugged into scans with <see cref="DuplicateFinderBuilder.UseCatalog"/> so
/// that a scan also reports the files of other machines that equal its own (a sibling of
/// <see cref="Caching.HashCache"/>). The PostgreSQL implementation is <c>PostgresCatalog</c> in the
/// Dedup.Core.PostgreSql package.
/// </summary>
/// <remarks>
/// <para>A scan calls, once each: as it starts <see cref="GetDigestsAsync"/> (when that gives <see langword="null"/>,
/// <see cref="GetDigestedFilesAsync"/>), and when that names some files (a rescan) the groups of their contents
/// (<see cref="FindFilesOnOtherMachinesAsync"/> when it has the digests, which leaves out the machine's own files, the
/// scan naming them by content; else <see cref="FindGroupsAcrossMachinesAsync(string, Action{string}, CancellationToken)"/>);
/// at its size barrier <see cref="ReplaceFilesAndRecordDigestsAsync"/> with every file it enumerated (unique sizes
/// included) and the digests it will make, and <see cref="GetSizesOnOtherMachinesAsync"/> (with its files' sizes),
/// from which it knows which files need a SHA-256: those whose size another file of the catalog (this machine's or
/// another's) shares, and that have no digest under their unchanged stamp. It compares its files while the replacement
/// runs, computing the SHA-256 of those it reads whole from the same bytes and handing each on once checked; then, once
/// its own groups are found and its files and digests stored, <see cref="ExchangeDigestRequestsAsync"/> and the groups:
/// on a rescan only those of the contents it hashed
/// (<see cref="FindGroupsAcrossMachinesAsync(string, IReadOnlyCollection{CatalogDigest}, Action{string}, CancellationToken)"/>,
/// or the read by contents of <see cref="FindFilesOnOtherMachinesAsync"/>), else all of them. Its groups of a size another machine holds are held back until then, to be reported once each,
/// with the other machines' files of the same content. A rescan thus sees the other machines as they were when it
/// started, for its unchanged files. Files of different machines are matched by size and SHA-256 (a digest no client
/// can craft a collision for), never byte by byte.</para>
/// <para>Any exception these throw (other than the scan's own cancellation) ends the scan's use of the
/// catalog: the scan still reports its own byte-verified groups, and the failure is in
/// <see cref="Reporting.CatalogStatistics.Error"/>.</para>
/// </remarks>
public abstract class FileCatalog
{
    /// <summary>Replaces all of <paramref name="machine"/>'s files with <paramref name="files"/>.</summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="files">Every file of the scan, made as they are read (stream them); enumerated once, or more when it is an <see cref="IReadOnlyCollection{T}"/> (a scan passes one).</param>
    /// <param name="cancellationToken">Cancels the replacement.</param>
    /// <returns>How many files were stored.</returns>
    public abstract Task<long> ReplaceFilesAsync(string machine, IEnumerable<CatalogFile> files, CancellationToken cancellationToken = default);

    /// <summary>
    /// The stamps of <paramref name="machine"/>'s files that have a digest stored (from its previous scans): a file
    /// that still has one of these stamps needs no new SHA-256. Called at the size barrier, beside
    /// <see cref="ReplaceFilesAsync"/>, before the scan reads any file.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The stamps; empty for a machine the catalog does not know.</returns>
    public abstract Task<IReadOnlyCollection<FileStamp>> GetDigestedFilesAsync(string machine, CancellationToken cancellationToken = default);

    /// <summary>
    /// The digests stored for <paramref name="machine"/>'s files (from its previous scans), each under the stamp the file
    /// had when it was read: <see cref="GetDigestedFilesAsync"/> with the SHA-256s. A scan asks for these first as it
    /// starts; given them, it names its own files in the groups across machines itself, by content, and reads only the
    /// other machines' files (<see cref="FindFilesOnOtherMachinesAsync"/>), so the catalog need not send the machine's
    /// own rows back. The default gives <see langword="null"/>: the scan then asks <see cref="GetDigestedFilesAsync"/>,
    /// and reads the groups with the machine's files in them (<see cref="FindGroupsAcrossMachinesAsync(string, Action{string}, CancellationToken)"/>).
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The digests (empty for a machine the catalog does not know); <see langword="null"/> when this catalog does not give them.</returns>
    public virtual Task<IReadOnlyCollection<CatalogDigest>?> GetDigestsAsync(string machine, CancellationToken cancellationToken = default) =>
        Task.FromResult<IReadOnlyCollection<CatalogDigest>?>(null);

    /// <summary>
    /// The files of other machines than <paramref name="machine"/> (as of their last scans) whose content (size and
    /// SHA-256) is that of a digest stored for one of <paramref name="machine"/>'s files, or, given
    /// <paramref name="contents"/>, that of one of those: grouped by content, without <paramref name="machine"/>'s own
    /// files (a group may then hold a single file). What a scan calls once <see cref="GetDigestsAsync"/> gave it the
    /// machine's digests: it adds its own files to each group itself. The default reads
    /// <see cref="FindGroupsAcrossMachinesAsync(string, Action{string}, CancellationToken)"/> (or its overload by
    /// contents) and leaves out <paramref name="machine"/>'s files.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="contents">The contents wanted, as digests of the machine's files (their stamps give the sizes); <see langword="null"/>: those of every digest stored for the machine.</param>
    /// <param name="skipped">Called with a sentence for each set of rows left out, as by <see cref="FindGroupsAcrossMachinesAsync(string, Action{string}, CancellationToken)"/>.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups of other machines' files; none for no contents.</returns>
    public virtual async Task<IReadOnlyList<CatalogGroup>> FindFilesOnOtherMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest>? contents, Action<string> skipped, CancellationToken cancellationToken = default)
    {
        if (skipped is null)
        {
            throw new ArgumentNullException(nameof(skipped));
        }

        var groups = contents is null
            ? await FindGroupsAcrossMachinesAsync(machine, skipped, cancellationToken).ConfigureAwait(false)
            : await FindGroupsAcrossMachinesAsync(machine, contents, skipped, cancellationToken).ConfigureAwait(false);
        var others = new List<CatalogGroup>(groups.Count);
        foreach (var group in groups)
        {
            var files = group.Files.Where(file => !string.Equals(file.Machine, machine, StringComparison.Ordinal)).ToList();
            if (files.Count > 0)
            {
                others.Add(group with { Files = files });
            }
        }

        return others;
    }

    /// <summary>
    /// Which of <paramref name="sizes"/> a file of another machine than <paramref name="machine"/> has (as of that
    /// machine's last scan). Called at the size barrier with the distinct sizes of the scan's files: those only one file
    /// of the scan has need a SHA-256 only when another machine has their size, and the scan's groups of a size another
    /// machine has may hold its files too.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="sizes">File sizes in bytes.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The sizes other machines have.</returns>
    public abstract Task<IReadOnlyCollection<long>> GetSizesOnOtherMachinesAsync(string machine, IReadOnlyCollection<long> sizes, CancellationToken cancellationToken = default);

    /// <summary>Stores the SHA-256 of files of <paramref name="machine"/>, each under the stamp the file had when it was read.</summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="digests">The digests; enumerated once.</param>
    /// <param name="cancellationToken">Cancels the recording.</param>
    /// <returns>How many files (identities) received a digest.</returns>
    public abstract Task<long> RecordDigestsAsync(string machine, IEnumerable<CatalogDigest> digests, CancellationToken cancellationToken = default);

    /// <summary>
    /// <see cref="ReplaceFilesAsync"/>, then <see cref="RecordDigestsAsync"/>, as one call: what a scan calls at its size
    /// barrier. The digests arrive while the scan compares its files (each once its file was read and checked), so a
    /// catalog can store them meanwhile, in the same transaction as the files, instead of all at once after the
    /// comparison. The default makes the two calls, collecting the digests in between.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="files">Every file of the scan, enumerated before <paramref name="digests"/>: once, or more when it is an <see cref="IReadOnlyCollection{T}"/> (a scan passes one).</param>
    /// <param name="digests">SHA-256s of some of those files, each under the stamp the file had when it was read; ends when the scan has no more.</param>
    /// <param name="cancellationToken">Cancels the replacement and the recording.</param>
    /// <returns>How many files were stored.</returns>
    public virtual async Task<long> ReplaceFilesAndRecordDigestsAsync(string machine, IEnumerable<CatalogFile> files, IAsyncEnumerable<CatalogDigest> digests, CancellationToken cancellationToken = default)
    {
        if (digests is null)
        {
            throw new ArgumentNullException(nameof(digests));
        }

        var stored = await ReplaceFilesAsync(machine, files, cancellationToken).ConfigureAwait(false);
        var all = new List<CatalogDigest>();
        await foreach (var digest in digests.WithCancellation(cancellationToken).ConfigureAwait(false))
        {
            all.Add(digest);
        }

        if (all.Count > 0)
        {
            await RecordDigestsAsync(machine, all, cancellationToken).ConfigureAwait(false);
        }

        return stored;
    }

    /// <summary>
    /// Called once a scan's files and digests are stored, before its groups are read: records which of
    /// <paramref name="machine"/>'s sizes the scan left without a digest (<paramref name="undigestedSizes"/>: sizes only
    /// one of its files has, which no other machine held), answers which sizes other machines had asked this machine's
    /// digests for (before this call), and records and returns, per other machine, the sizes of this machine's files
    /// for which that machine holds a file without a digest: its next scan is asked to hash them (it does anyway: a
    /// size only one of its files has and another machine holds). The requests this scan fulfilled are dropped. The
    /// default records nothing and answers <see cref="CatalogDigestRequests.None"/>: a scan then cannot tell a partial result.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="undigestedSizes">The sizes of the machine's files left without a digest by this scan.</param>
    /// <param name="cancellationToken">Cancels the exchange.</param>
    /// <returns>The requests asked of this machine, and the ones it now waits on.</returns>
    public virtual Task<CatalogDigestRequests> ExchangeDigestRequestsAsync(string machine, IReadOnlyCollection<long> undigestedSizes, CancellationToken cancellationToken = default) =>
        Task.FromResult(CatalogDigestRequests.None);

    /// <summary>
    /// Every group of two or more distinct files (of any machines, as of their last scans) with the same size and
    /// SHA-256 as a file of <paramref name="machine"/> and holding files of another machine (groups of
    /// <paramref name="machine"/>'s files alone may be left out: the scan finds those by comparing bytes). The files of
    /// <paramref name="machine"/> may come without a path (an empty <see cref="CatalogMatch.Path"/>): the scan names
    /// them from its own listing, by their stamps, whatever path they come with.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups.</returns>
    public abstract Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, CancellationToken cancellationToken = default);

    /// <summary>
    /// <see cref="FindGroupsAcrossMachinesAsync(string, CancellationToken)"/>, naming the stored rows the catalog could
    /// not use and left out (such as the rows of a machine whose record was deleted by hand): what a scan calls. The
    /// scan reports each call of <paramref name="skipped"/> as one of its errors (with an empty
    /// <see cref="Reporting.ScanError.Path"/>) and goes on with the groups returned. The default calls the overload
    /// without <paramref name="skipped"/> and names nothing.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="skipped">Called with a sentence for each set of rows left out (such as all those of one machine id); from any thread.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups, without the rows left out; a group with fewer than two files left, or with none of another machine, is left out too.</returns>
    public virtual Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, Action<string> skipped, CancellationToken cancellationToken = default) =>
        FindGroupsAcrossMachinesAsync(machine, cancellationToken);

    /// <summary>
    /// The groups of <see cref="FindGroupsAcrossMachinesAsync(string, Action{string}, CancellationToken)"/> whose content
    /// (size and SHA-256) is that of one of <paramref name="digests"/>, as the catalog holds them now. A rescan reads
    /// the groups of its unchanged files at its size barrier, beside its comparison, and once its files and digests are
    /// stored only those of the contents it hashed, with this. The default reads every group and keeps those.
    /// </summary>
    /// <param name="machine">The scanning machine's name.</param>
    /// <param name="digests">The contents wanted, as digests of the machine's files (their stamps give the sizes); repeats count once.</param>
    /// <param name="skipped">Called with a sentence for each set of rows left out, as by the overload without <paramref name="digests"/>.</param>
    /// <param name="cancellationToken">Cancels the query.</param>
    /// <returns>The groups with one of those contents; none for no digests.</returns>
    public virtual async Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest> digests, Action<string> skipped, CancellationToken cancellationToken = default)
    {
        if (digests is null)
        {
            throw new ArgumentNullException(nameof(digests));
        }

        var wanted = new HashSet<CatalogContent>(digests.Select(CatalogContent.Of));
        if (wanted.Count == 0)
        {
            return [];
        }

        var groups = await FindGroupsAcrossMachinesAsync(machine, skipped, cancellationToken).ConfigureAwait(false);
        return groups.Where(group => wanted.Contains(CatalogContent.Of(group))).ToList();
    }
}
