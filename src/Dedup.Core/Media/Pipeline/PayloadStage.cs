using Dedup.Core.IO;
using Dedup.Core.Scanning;

namespace Dedup.Core.Media.Pipeline;

/// <summary>
/// Media's stage 2: compares located classes of one (format, payload length) by payload, through the same
/// <see cref="WholeFileStage"/> reading each representative through its <see cref="PayloadMap"/>.
/// </summary>
internal sealed class PayloadStage(WholeFileStage compare)
{
    /// <summary>
    /// Returns the sets of payload-equal classes among <paramref name="classes"/>. A class whose located copy drops out
    /// meanwhile (vanished, changed) is compared again through its next live copy (byte-identical, so the same ranges
    /// apply) against one class of each group found so far and each class still alone, until no class is left to retry.
    /// </summary>
    public List<PayloadGroup> Compare(long length, List<ContentClass> classes, CancellationToken cancellationToken)
    {
        var groups = new List<PayloadGroup>();
        var compared = classes;
        while (compared.Count >= 2)
        {
            CompareOnce(length, compared, groups, cancellationToken);
            if (!MoveDroppedToNextCopy(compare.Context, compared))
            {
                break;
            }

            compared = RetryCandidates(compare.Context.Live, classes, groups);
        }

        return groups;
    }

    /// <summary>One payload comparison of the classes' representatives; each match merges into <paramref name="groups"/>.</summary>
    private void CompareOnce(long length, List<ContentClass> compared, List<PayloadGroup> groups, CancellationToken cancellationToken)
    {
        var nodes = new List<FileNode>(compared.Count);
        var classOf = new Dictionary<FileNode, ContentClass>(compared.Count, ReferenceEqualityComparer.Instance);
        var maps = new Dictionary<FileNode, IContentMap>(compared.Count, ReferenceEqualityComparer.Instance);
        foreach (var found in compared)
        {
            nodes.Add(found.Payload!);
            classOf[found.Payload!] = found;
            maps[found.Payload!] = found.Map!;
        }

        foreach (var match in compare.Compare(new CandidateSet(length, nodes, maps), cancellationToken))
        {
            var matched = new ContentClass[match.Members.Length];
            for (var i = 0; i < matched.Length; i++)
            {
                matched[i] = classOf[match.Members[i]];
            }

            PayloadGroup.Merge(groups, matched, match.Verified);
        }
    }

    /// <summary>Moves each class whose representative dropped out to its next live copy; whether any was moved.</summary>
    private static bool MoveDroppedToNextCopy(ScanContext context, List<ContentClass> compared)
    {
        var retried = false;
        foreach (var found in compared)
        {
            retried |= context.Live.IsDropped(found.Payload!) && found.TryNextCopy(context);
        }

        return retried;
    }

    /// <summary>What to compare again: one live class per group and every live class still alone.</summary>
    private static List<ContentClass> RetryCandidates(LiveFiles live, List<ContentClass> classes, List<PayloadGroup> groups)
    {
        var compared = new List<ContentClass>();
        foreach (var group in groups)
        {
            if (group.Classes.Find(c => live.IsLive(c.Payload!)) is { } first)
            {
                compared.Add(first);
            }
        }

        foreach (var found in classes)
        {
            if (found.Group is null && live.IsLive(found.Payload!))
            {
                compared.Add(found);
            }
        }

        return compared;
    }
}
