using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Prediction;

namespace Dedup.Core.Linking;

/// <summary>
/// A group split by what the action can do: files the action could join to one kept file form a partition, and each
/// partition keeps its own file. Three copies with permissions 600, 644 and 644 hard-link the two 644s; a group across
/// ext4 and btrfs clones its btrfs copies. Actions that remove names (delete, trash) and a linker of the user's own
/// need no partition: the group stays whole.
/// </summary>
public sealed partial class DuplicateActionPlanner
{
    /// <summary>
    /// The group's partitions, in the order of their first file: one device each when the action works within one file
    /// system (<see cref="LinkerCapabilities.NeedsSameDevice"/>), one owner, group and permissions each when the
    /// duplicate's names end up showing the kept file's inode (<see cref="LinkerCapabilities.SharesKeptMetadata"/>),
    /// as the executor's rule will compare them (<see cref="PlanPredictor.AccessOf"/>). Files whose owner and permissions
    /// are not known share a partition: the executor's re-checks decide for them, as before partitions.
    /// </summary>
    private List<List<DuplicateFile>> PartitionsOf(DuplicateGroup group, PlanPredictor predictor)
    {
        // A media-payload group is refused whole (the files differ byte for byte): nothing to split.
        if (group.Match != ContentMatch.WholeFile || !(Capabilities.NeedsSameDevice || Capabilities.SharesKeptMetadata))
        {
            return [group.Files.ToList()];
        }

        var partitions = new List<List<DuplicateFile>>();
        var byKey = new Dictionary<(ulong Device, OwnerAndMode.Access? Access), List<DuplicateFile>>();
        foreach (var file in group.Files)
        {
            var key = (Capabilities.NeedsSameDevice ? file.Identity.Device : 0, Capabilities.SharesKeptMetadata ? predictor.AccessOf(file) : null);
            if (!byKey.TryGetValue(key, out var partition))
            {
                byKey[key] = partition = [];
                partitions.Add(partition);
            }

            partition.Add(file);
        }

        return partitions;
    }

    /// <summary>
    /// The (kept, duplicate) pairs of a group, one choice of the kept file per partition. Each partition of two or more files keeps the file
    /// the keep rules choose among its files, or is listed as undecided (its files as a group of their own) when they
    /// leave a tie (a protected copy, when a partition has one, is its kept file). A file that can join no other is paired with the kept file the rules prefer among the partitions'
    /// (the first when they tie), so the plan says why it is left alone. When no partition is decided, the group is
    /// planned as a group the action could join whole is: every file paired with the one the rules choose, or the
    /// whole group undecided. The pairs come kept file by kept file, in path order, so the dry run names each kept file once.
    /// </summary>
    private IEnumerable<(DuplicateFile Kept, DuplicateFile Duplicate)> PairsOf(DuplicateGroup group, List<List<DuplicateFile>> partitions, List<DuplicateGroup> undecided, Topology.TrashLocator trash, Func<DuplicateFile, bool> isProtected)
    {
        var pairs = new List<(DuplicateFile Kept, DuplicateFile Duplicate)>();
        var kepts = new List<DuplicateFile>();
        var tied = new List<List<DuplicateFile>>();
        var alone = new List<DuplicateFile>();
        foreach (var partition in partitions)
        {
            if (partition.Count == 1)
            {
                alone.Add(partition[0]);
                continue;
            }

            var kept = KeepRule.SelectKept(partition, KeepRules, trash.IsDisposable, isProtected);
            if (kept is null)
            {
                tied.Add(partition);
                continue;
            }

            kepts.Add(kept);
            pairs.AddRange(partition.Select(duplicate => (kept, duplicate)));
        }

        var reference = kepts.Count switch
        {
            // The whole group was the one tied partition: that choice was just made, and left a tie.
            0 when tied is [{ } whole] && whole.Count == group.Files.Count => null,
            0 => KeepRule.SelectKept(group.Files, KeepRules, trash.IsDisposable, isProtected),
            1 => kepts[0],
            _ => KeepRule.SelectKept(kepts, KeepRules, trash.IsDisposable, isProtected) ?? kepts[0],
        };
        if (reference is null)
        {
            undecided.Add(group); // nothing decided anywhere: no copy is guessed
            return [];
        }

        undecided.AddRange(tied.Select(files => group with { Files = files }));
        pairs.AddRange(alone.Select(duplicate => (reference, duplicate)));
        var order = new Dictionary<DuplicateFile, int>(ReferenceEqualityComparer.Instance);
        for (var i = 0; i < group.Files.Count; i++)
        {
            order[group.Files[i]] = i;
        }

        return pairs.OrderBy(p => order[p.Kept]).ThenBy(p => order[p.Duplicate]);
    }
}
