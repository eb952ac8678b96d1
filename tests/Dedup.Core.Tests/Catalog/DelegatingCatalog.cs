using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Dedup.Core.PostgreSql;

namespace Dedup.Core.Tests.Catalog;

/// <summary>The real catalog with every call passed through: a test derives from it and overrides the call it changes.</summary>
internal class DelegatingCatalog(PostgresCatalog store) : FileCatalog
{
    /// <summary>The catalog every call goes to.</summary>
    protected PostgresCatalog Store { get; } = store;

    public override Task<long> ReplaceFilesAsync(string machine, IEnumerable<CatalogFile> files, CancellationToken cancellationToken = default) =>
        Store.ReplaceFilesAsync(machine, files, cancellationToken);

    public override Task<IReadOnlyCollection<FileStamp>> GetDigestedFilesAsync(string machine, CancellationToken cancellationToken = default) =>
        Store.GetDigestedFilesAsync(machine, cancellationToken);

    public override Task<IReadOnlyCollection<long>> GetSizesOnOtherMachinesAsync(string machine, IReadOnlyCollection<long> sizes, CancellationToken cancellationToken = default) =>
        Store.GetSizesOnOtherMachinesAsync(machine, sizes, cancellationToken);

    public override Task<long> RecordDigestsAsync(string machine, IEnumerable<CatalogDigest> digests, CancellationToken cancellationToken = default) =>
        Store.RecordDigestsAsync(machine, digests, cancellationToken);

    public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, CancellationToken cancellationToken = default) =>
        Store.FindGroupsAcrossMachinesAsync(machine, cancellationToken);

    public override Task<CatalogDigestRequests> ExchangeDigestRequestsAsync(string machine, IReadOnlyCollection<long> undigestedSizes, CancellationToken cancellationToken = default) =>
        Store.ExchangeDigestRequestsAsync(machine, undigestedSizes, cancellationToken);
}
