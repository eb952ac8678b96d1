using Dedup.Core.IO;

namespace Dedup.Core.Scanning;

/// <summary>
/// Settles one candidate set into groups of equal content: probes (<see cref="ProbeStage"/>), then the comparer
/// strategy on each bucket the probes could not tell apart. Reads whole files, or each file through its content map
/// when the set has them (media's payload stage). Files that fail are marked dropped.
/// </summary>
internal sealed class WholeFileStage(ScanContext context)
{
    /// <summary>The scan this stage compares for.</summary>
    public ScanContext Context => context;

    /// <summary>Probes and compares <paramref name="candidate"/>; returns the groups it found (the probe's, then each bucket's).</summary>
    public List<SettledGroup> Compare(CandidateSet candidate, CancellationToken cancellationToken)
    {
        // One token per device the set touches, taken in global order (HDD: one reader at a time).
        var devices = DevicesOf(candidate.Files);
        var rotational = Array.Exists(devices, d => context.Drives.Topology.GetDevice(d).Kind == Topology.DriveKind.Hdd);
        if (rotational)
        {
            // Until physical offsets are known, inode order approximates disk order.
            candidate.Files.Sort(static (a, b) => a.Primary.Identity.FileId.CompareTo(b.Primary.Identity.FileId));
        }

        // Further readers within this set take further tokens of its device (one device only).
        var readers = devices.Length == 1 ? new ReaderFanOut(context.Drives.GetSemaphore(devices[0])) : ReaderFanOut.Single;

        // A feature's settler (the cache) applies to whole files only (not media payloads), and may decline. It takes
        // the device tokens only if it has to read: a set settled without reading must not wait behind another set's reads.
        if (candidate.Maps is null && context.Settler is { } settler
            && settler.TrySettle(this, candidate.Files, candidate.Size, readers, rotational, () => context.Drives.EnterAll(devices, cancellationToken), cancellationToken) is { } settled)
        {
            return settled;
        }

        using var token = context.Drives.EnterAll(devices, cancellationToken);
        return CompareFiles(candidate.Files, candidate.Size, candidate.Maps, readers, rotational, probeKeys: null, cancellationToken);
    }

    /// <summary>
    /// Probes and compares <paramref name="files"/> (the device tokens already held); with <paramref name="probeKeys"/>,
    /// each file's probe key is stored there by index (for a settler that keeps them).
    /// </summary>
    internal List<SettledGroup> CompareFiles(
        List<FileNode> files, long size, IReadOnlyDictionary<FileNode, IContentMap>? maps, ReaderFanOut readers, bool rotational,
        ulong[]? probeKeys, CancellationToken cancellationToken)
    {
        var found = new List<SettledGroup>();
        var unsettled = new List<List<int>>();
        OpenedFile[][]? open = null; // per bucket, the files its probe left open
        using (var set = new FileComparisonSet(files, size, context, maps) { RecordPhysicalOffsets = rotational, ProbeKeys = probeKeys })
        {
            ProbeStage.Run(set, readers, unsettled, cancellationToken);
            AddGroups(found, set);
            if (set.KeptAny && unsettled.Count > 0) // never with a rotational disk's order, which reorders a bucket's files
            {
                open = new OpenedFile[unsettled.Count][];
                for (var b = 0; b < unsettled.Count; b++)
                {
                    open[b] = new OpenedFile[unsettled[b].Count];
                    for (var k = 0; k < unsettled[b].Count; k++)
                    {
                        open[b][k] = set.TakeKept(unsettled[b][k]);
                    }
                }
            }
        } // the rest of the probe's files (those told apart) close here

        // Buckets are independent; a set with many (same size, same probes) must not keep one core busy
        // while the other idles, so they are compared in parallel within the device's reader limit.
        void CompareBucket(List<int> bucket, OpenedFile[]? kept)
        {
            var subsetFiles = new List<FileNode>(bucket.Count);
            foreach (var index in bucket)
            {
                subsetFiles.Add(files[index]);
            }

            if (rotational)
            {
                // The full reads follow the first extents' physical order recorded by the probe.
                subsetFiles.Sort(static (a, b) => a.PhysicalOffset.CompareTo(b.PhysicalOffset));
            }

            using var subset = new FileComparisonSet(subsetFiles, size, context, maps, kept);
            context.Options.Strategy.Partition(subset, cancellationToken);
            AddGroups(found, subset);
        }

        try
        {
            readers.For(unsettled.Count, i => CompareBucket(unsettled[i], open?[i]), cancellationToken);
        }
        finally
        {
            // Buckets never compared (cancelled, or a strategy that threw) still close what their probe left open; a
            // bucket that was compared took its files over and cleared their slots as it closed them.
            foreach (var kept in open ?? [])
            {
                for (var k = 0; k < kept.Length; k++)
                {
                    kept[k].Close();
                    kept[k] = OpenedFile.None;
                }
            }
        }

        return found;
    }

    /// <summary>Adds a settled set's groups as files (buckets may settle in parallel).</summary>
    private static void AddGroups(List<SettledGroup> found, FileComparisonSet set)
    {
        lock (found)
        {
            foreach (var (members, verified) in set.Groups)
            {
                var nodes = new FileNode[members.Length];
                for (var i = 0; i < members.Length; i++)
                {
                    nodes[i] = set[members[i]];
                }

                found.Add(new SettledGroup(nodes, verified));
            }
        }
    }

    /// <summary>The distinct devices of a set's files, ascending; almost always one, so no LINQ or hash set per set.</summary>
    private static ulong[] DevicesOf(List<FileNode> files)
    {
        var first = files[0].Primary.Identity.Device;
        List<ulong>? more = null;
        foreach (var file in files)
        {
            var device = file.Primary.Identity.Device;
            if (device != first && !(more?.Contains(device) ?? false))
            {
                (more ??= []).Add(device);
            }
        }

        if (more is null)
        {
            return [first];
        }

        ulong[] devices = [first, .. more];
        Array.Sort(devices); // EnterAll takes them in ascending order
        return devices;
    }
}
