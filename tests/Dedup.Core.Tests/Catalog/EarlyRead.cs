using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// The catalog (its own streamed store of files and digests), counting its reads by contents; with <c>defaultRead</c>
/// those are answered by the base class's default; with <see cref="EarlyAfterStore"/>, a read of all groups waits until
/// the scan's files and digests are stored (a rescan's early read answered late: the catalog then holds this scan).
/// With <c>byContent</c> it gives the machine's stored digests (<see cref="FileCatalog.GetDigestsAsync"/>), so a scan
/// reads only the other machines' files and names its own from its digests; else the groups hold the machine's files.
/// </summary>
internal sealed class EarlyReadCatalog(PostgresCatalog store, bool defaultRead, bool byContent = false) : DelegatingCatalog(store)
{
    private TaskCompletionSource? _stored;

    public int ByContents { get; private set; }

    /// <summary>The SHA-256s of every read by contents, in order.</summary>
    public List<ReadOnlyMemory<byte>> ContentsAsked { get; } = [];

    public bool EarlyAfterStore
    {
        get => _stored is not null;
        set => _stored = value ? new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously) : null;
    }

    public override async Task<long> ReplaceFilesAndRecordDigestsAsync(string machine, IEnumerable<CatalogFile> files, IAsyncEnumerable<CatalogDigest> digests, CancellationToken cancellationToken = default)
    {
        var stored = _stored;
        try
        {
            return await Store.ReplaceFilesAndRecordDigestsAsync(machine, files, digests, cancellationToken);
        }
        finally
        {
            stored?.TrySetResult();
        }
    }

    public override async Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, Action<string> skipped, CancellationToken cancellationToken = default)
    {
        Assert.True(!byContent || defaultRead, "given the machine's digests, a scan reads only other machines' files");
        if (_stored is { } stored)
        {
            await stored.Task;
        }

        return await Store.FindGroupsAcrossMachinesAsync(machine, skipped, cancellationToken);
    }

    public override Task<IReadOnlyCollection<CatalogDigest>?> GetDigestsAsync(string machine, CancellationToken cancellationToken = default) =>
        byContent ? Store.GetDigestsAsync(machine, cancellationToken) : base.GetDigestsAsync(machine, cancellationToken);

    public override async Task<IReadOnlyList<CatalogGroup>> FindFilesOnOtherMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest>? contents, Action<string> skipped, CancellationToken cancellationToken = default)
    {
        Assert.True(byContent, "a scan reads other machines' files only once the catalog gave it the machine's digests");
        if (defaultRead)
        {
            // The base class's default, through the two reads above (they wait and count).
            return await base.FindFilesOnOtherMachinesAsync(machine, contents, skipped, cancellationToken);
        }

        if (contents is null && _stored is { } stored)
        {
            await stored.Task;
        }

        if (contents is not null)
        {
            ByContents++;
            ContentsAsked.AddRange(contents.Select(digest => digest.Sha256));
        }

        return await Store.FindFilesOnOtherMachinesAsync(machine, contents, skipped, cancellationToken);
    }

    public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest> digests, Action<string> skipped, CancellationToken cancellationToken = default)
    {
        Assert.True(!byContent || defaultRead, "given the machine's digests, a scan reads only other machines' files");
        ByContents++;
        ContentsAsked.AddRange(digests.Select(digest => digest.Sha256));
        return defaultRead
            ? base.FindGroupsAcrossMachinesAsync(machine, digests, skipped, cancellationToken)
            : Store.FindGroupsAcrossMachinesAsync(machine, digests, skipped, cancellationToken);
    }
}

/// <summary>The two machines of the early-read tests and what their scans report.</summary>
internal static class EarlyRead
{
    /// <summary>Alpha's tree: two contents of one size (so alpha hashes both) and one of another.</summary>
    public static TempTree Alpha(byte[] p1, byte[] p2, byte[] k)
    {
        var alpha = new TempTree();
        alpha.Write("p1.bin", p1);
        alpha.Write("p2.bin", p2);
        alpha.Write("k.bin", k);
        return alpha;
    }

    /// <summary>Alpha, beta, alpha, beta: every file hashed, and beta's next scan a rescan with an early read.</summary>
    public static async Task ConvergeAsync(FileCatalog catalog, TempTree alpha, TempTree beta)
    {
        foreach (var (machine, tree) in new[] { ("alpha", alpha), ("beta", beta), ("alpha", alpha), ("beta", beta) })
        {
            var (_, summary) = await ScanAsync(catalog, machine, tree);
            Assert.Null(summary.Catalog!.Error);
        }
    }

    /// <summary>New content and a later modification time, as an edit leaves them.</summary>
    public static void Rewrite(TempTree tree, string relative, byte[] content, int minutes)
    {
        tree.Write(relative, content);
        File.SetLastWriteTimeUtc(tree.PathOf(relative), DateTime.UtcNow.AddMinutes(minutes));
    }

    public static string K(TempTree alpha, TempTree beta) => $"alpha:{alpha.PathOf("k.bin")} beta:{beta.PathOf("k.bin")}";

    /// <summary>Each group as its files (machine:path, then =link for each other name), sorted; the groups sorted.</summary>
    public static List<string> Describe(IEnumerable<DuplicateGroup> groups) =>
        [.. groups.Select(group => string.Join(" ", group.Files.Select(file => $"{file.Machine}:{file.Path}" + string.Concat(file.OtherLinks.Select(link => $"={link}"))).Order(StringComparer.Ordinal))).Order(StringComparer.Ordinal)];

    /// <summary>
    /// An unchanged rescan right after: its early read is of the catalog as the scan left it, with no late read, so
    /// it reports what one read after the scan gives.
    /// </summary>
    public static async Task SameAfterAsync(FileCatalog catalog, TempTree tree, List<DuplicateGroup> groups)
    {
        var (after, summary) = await ScanAsync(catalog, "beta", tree);
        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(0, summary.Catalog.FilesHashed);
        Assert.Equal(Ordered(after), Ordered(groups)); // the groups in the order one read gives them too
    }

    /// <summary>Each group as its files (machine:path, sorted), in the order the scan reported the groups.</summary>
    public static List<string> Ordered(IEnumerable<DuplicateGroup> groups) =>
        [.. groups.Select(group => string.Join(" ", group.Files.Select(file => $"{file.Machine}:{file.Path}").Order(StringComparer.Ordinal)))];

    public static Task<(List<DuplicateGroup> Groups, Reporting.ScanSummary Summary)> ScanAsync(FileCatalog catalog, string machine, TempTree tree) =>
        Scan.RunAsync(b => b.AddRoot(tree.Root).UseCatalog(catalog, machine));
}
