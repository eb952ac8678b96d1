using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Scanning.Features;

namespace Dedup.Core;

/// <summary>
/// The one place a scan is composed from its settings: the mode's compare stage and the features, each registered in
/// one line. The scan core (Scanning/) knows neither: it sees an <see cref="ICompareStage"/> and <see cref="ScanFeature"/>s.
/// </summary>
internal static class ScanComposition
{
    public static ScanRun Compose(DuplicateFinderOptions options, ScanStores stores, ScanCallbacks? callbacks)
    {
        // Media and folder modes are pipelines of their own, composing the whole-file stage.
        ICompareStage stage = options.MediaMode ? new Media.Pipeline.MediaScan(options)
            : options.FolderMode ? new Folders.FolderScan(options)
            : new WholeFileScan();

        // In the order their phases are called (the cache starts loading before the catalog takes the listing).
        ScanFeature?[] features =
        [
            Caching.CacheFeature.For(options, stores.Cache, stores.CacheRequired),
            Catalog.CatalogFeature.For(options, stores.Catalog),
        ];
        return new ScanRun(options, stage, Array.FindAll(features, f => f is not null)!, callbacks);
    }
}
