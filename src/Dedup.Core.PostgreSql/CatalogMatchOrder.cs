using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;

namespace Dedup.Core.PostgreSql;

/// <summary>The order of a group's catalog files, the scan's read and the fleet listing alike: by machine name (ordinal), then path bytes, then identity.</summary>
internal sealed class CatalogMatchOrder : IComparer<CatalogMatch>
{
    public static readonly CatalogMatchOrder Instance = new();

    public int Compare(CatalogMatch? x, CatalogMatch? y) => Compare(x!.Machine, x.Path.Span, x.Stamp.Identity, y!.Machine, y.Path.Span, y.Stamp.Identity);

    /// <summary>The same order on a match's parts (rows kept as structs).</summary>
    public static int Compare(string xMachine, ReadOnlySpan<byte> xPath, FileIdentity xIdentity, string yMachine, ReadOnlySpan<byte> yPath, FileIdentity yIdentity)
    {
        int byMachine = string.CompareOrdinal(xMachine, yMachine);
        if (byMachine != 0)
        {
            return byMachine;
        }

        // Then by identity: the machine's own files of a read across machines have no path.
        int byPath = xPath.SequenceCompareTo(yPath);
        return byPath != 0 ? byPath : xIdentity.Device != yIdentity.Device
            ? xIdentity.Device.CompareTo(yIdentity.Device)
            : xIdentity.FileId.CompareTo(yIdentity.FileId);
    }
}
