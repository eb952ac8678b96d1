using Dedup.Core.Catalog;

namespace Dedup.Core.PostgreSql;

/// <summary>The order of a group's catalog files, the scan's read and the fleet listing alike: by machine name (ordinal), then path bytes, then identity.</summary>
internal sealed class CatalogMatchOrder : IComparer<CatalogMatch>
{
    public static readonly CatalogMatchOrder Instance = new();

    public int Compare(CatalogMatch? x, CatalogMatch? y)
    {
        int byMachine = string.CompareOrdinal(x!.Machine, y!.Machine);
        if (byMachine != 0)
        {
            return byMachine;
        }

        // Then by identity: the machine's own files of a read across machines have no path.
        int byPath = x.Path.Span.SequenceCompareTo(y.Path.Span);
        return byPath != 0 ? byPath : x.Stamp.Identity.Device != y.Stamp.Identity.Device
            ? x.Stamp.Identity.Device.CompareTo(y.Stamp.Identity.Device)
            : x.Stamp.Identity.FileId.CompareTo(y.Stamp.Identity.FileId);
    }

}
