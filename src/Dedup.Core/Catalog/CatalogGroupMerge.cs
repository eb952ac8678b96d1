using Dedup.Core.Enumeration;

namespace Dedup.Core.Catalog;

/// <summary>
/// A rescan's groups across machines from two reads: those of its unchanged files, read as the scan started (the
/// catalog then held its previous scan, and the other machines as of their last scans then), and those of the contents
/// it hashed, read once its files and digests were stored. The later read is the whole truth for the contents asked,
/// found in a group or not. In the earlier one, this machine's files count only under a stamp the scan listed and whose
/// digest it kept (unchanged since it was hashed: not a file deleted since, whose inode another file may have taken),
/// and a group left with none of them is no longer this machine's.
/// </summary>
internal static class CatalogGroupMerge
{
    public static IReadOnlyList<CatalogGroup> Merge(string machine, IReadOnlyList<CatalogGroup> early, IReadOnlyCollection<CatalogDigest> asked, IReadOnlyList<CatalogGroup> late, Func<FileStamp, bool>? kept)
    {
        // Every content asked of the later read, whether or not it found a group: another machine may have let go of its
        // copy since the earlier read (then the content is in no group).
        var replaced = new HashSet<CatalogContent>();
        foreach (var digest in asked)
        {
            replaced.Add(CatalogContent.Of(digest));
        }

        var merged = new List<CatalogGroup>(early.Count + late.Count);
        foreach (var group in early)
        {
            if (replaced.Contains(CatalogContent.Of(group)) || (kept is null ? group : Kept(machine, group, kept)) is not { } still)
            {
                continue;
            }

            merged.Add(still);
        }

        if (late.Count == 0)
        {
            return merged;
        }

        merged.AddRange(late);
        // The catalog's order (largest size first, then by digest), as one read gives it.
        merged.Sort(CatalogOrder);
        return merged;
    }

    /// <summary>The catalog's order of groups: largest size first, then by digest.</summary>
    private static int CatalogOrder(CatalogGroup a, CatalogGroup b) =>
        a.Length != b.Length ? b.Length.CompareTo(a.Length) : a.Sha256.Span.SequenceCompareTo(b.Sha256.Span);

    /// <summary>Whether each group comes strictly after the one before it in <see cref="CatalogOrder"/> (no content twice).</summary>
    private static bool InCatalogOrder(IReadOnlyList<CatalogGroup> groups)
    {
        for (var i = 1; i < groups.Count; i++)
        {
            if (CatalogOrder(groups[i - 1], groups[i]) >= 0)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The group with only the machine's files whose stamp kept its digest; <see langword="null"/> when none is left.</summary>
    private static CatalogGroup? Kept(string machine, CatalogGroup group, Func<FileStamp, bool> kept)
    {
        var own = 0;
        var stale = 0;
        foreach (var file in group.Files)
        {
            if (string.Equals(file.Machine, machine, StringComparison.Ordinal))
            {
                if (kept(file.Stamp))
                {
                    own++;
                }
                else
                {
                    stale++;
                }
            }
        }

        if (own == 0)
        {
            return null;
        }

        return stale == 0
            ? group
            : group with { Files = group.Files.Where(file => !string.Equals(file.Machine, machine, StringComparison.Ordinal) || kept(file.Stamp)).ToList() };
    }

    /// <summary>
    /// A read's groups with one group per content, in the order of each content's first group: the scan reports one
    /// group per content, and joins a held group with the one catalog group of its content. A catalog's reads give one
    /// (a custom catalog may give several: their files are united).
    /// </summary>
    public static IReadOnlyList<CatalogGroup> OnePerContent(IReadOnlyList<CatalogGroup> found)
    {
        if (InCatalogOrder(found))
        {
            // Strictly in the catalog's order (PostgresCatalog's reads, this merge): a content's groups would be neighbours.
            return found;
        }

        var first = new Dictionary<CatalogContent, int>(found.Count);
        List<CatalogGroup>? united = null;
        for (var i = 0; i < found.Count; i++)
        {
            var content = CatalogContent.Of(found[i]);
            if (!first.TryGetValue(content, out var at))
            {
                first[content] = united?.Count ?? i;
                united?.Add(found[i]);
                continue;
            }

            united ??= [.. found.Take(i)];
            united[at] = united[at] with { Files = [.. united[at].Files, .. found[i].Files] };
        }

        return united ?? found;
    }
}
