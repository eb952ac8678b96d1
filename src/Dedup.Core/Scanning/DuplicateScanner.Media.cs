using System.Threading.Channels;
using Dedup.Core.Media;
using Dedup.Core.Media.Pipeline;

namespace Dedup.Core.Scanning;

/// <summary>
/// Media mode. Byte-identical files have identical payloads, so same-size files are first settled exactly as in
/// whole-file mode (sequential reads, probes that stop at the first differing page); only one file per resulting
/// class — and each file of a unique size — is then opened to locate its payload. Classes whose payloads are
/// equal merge into one group. Locating costs a few reads for most formats, but a PNG's chunk walk reads the
/// whole file: locating every copy too made media mode a third slower than whole-file mode on a folder of copies,
/// and a PNG the first stage read whole is not walked at all (<see cref="PngChunkStream"/>).
/// </summary>
internal static partial class DuplicateScanner
{
    private static void CompareMedia(ScanState state, MediaScan media, List<CandidateSet> sets, ChannelWriter<DuplicateGroup> writer, CancellationToken cancellationToken)
    {
        try
        {
            var parallel = new ParallelOptions { MaxDegreeOfParallelism = state.Options.MaxDegreeOfParallelism, CancellationToken = cancellationToken };

            // Stage 1: whole-file classes, each located through one member while its pages are still cached. The
            // classes of a set that split are located after the loop, in parallel: a set of many distinct files must
            // not locate them all on one thread, and a nested loop would exceed the scan's thread limit.
            var located = new List<ContentClass>();
            var deferred = new List<ContentClass>();
            void Locate(ContentClass found)
            {
                if (found.Locate(state, media, cancellationToken))
                {
                    lock (located)
                    {
                        located.Add(found);
                    }
                }
                else
                {
                    EmitClass(found, writer, state); // not media (or gone): its whole-file group is final
                }
            }

            Parallel.ForEach(sets, parallel, candidate =>
            {
                var classes = WholeFileClasses(state, media, candidate, cancellationToken);
                if (classes.Count == 1)
                {
                    Locate(classes[0]);
                }
                else
                {
                    lock (deferred)
                    {
                        deferred.AddRange(classes);
                    }
                }
            });
            Parallel.ForEach(deferred, parallel, Locate);

            // Stage 2: classes of the same format and payload length are compared by payload.
            var byKey = new Dictionary<(MediaFormat Format, long Length), List<ContentClass>>();
            foreach (var found in located)
            {
                var key = (found.Map!.Format, found.Map.Length);
                if (!byKey.TryGetValue(key, out var classes))
                {
                    byKey[key] = classes = new List<ContentClass>(1);
                }

                classes.Add(found);
            }

            var payloadSets = byKey.Where(static k => k.Value.Count >= 2).ToList();
            payloadSets.Sort(static (a, b) => (b.Value.Count * b.Key.Length).CompareTo(a.Value.Count * a.Key.Length)); // longest work first
            Parallel.ForEach(payloadSets, parallel, keyed => ComparePayloads(state, keyed.Key.Length, keyed.Value, writer, cancellationToken));

            // Classes whose payload matched no other class's (or had no other of its format and length).
            foreach (var found in located)
            {
                if (found.Group is null)
                {
                    EmitClass(found, writer, state);
                }
            }

            writer.Complete();
        }
        catch (Exception ex)
        {
            writer.Complete(ex);
        }
    }

    /// <summary>Splits one same-size set into byte-identical classes (a file of a unique size is a class of one).</summary>
    private static List<ContentClass> WholeFileClasses(ScanState state, MediaScan media, CandidateSet candidate, CancellationToken cancellationToken)
    {
        var classes = new List<ContentClass>();
        if (candidate.Files.Count == 1)
        {
            classes.Add(new ContentClass([candidate.Files[0]], verified: true));
            return classes;
        }

        var grouped = new HashSet<FileNode>(ReferenceEqualityComparer.Instance);
        CompareSet(state, candidate, set =>
        {
            // Buckets of one set may settle in parallel.
            lock (classes)
            {
                foreach (var (members, verified) in set.Groups)
                {
                    var nodes = new FileNode[members.Length];
                    for (var i = 0; i < members.Length; i++)
                    {
                        nodes[i] = set[members[i]];
                        grouped.Add(nodes[i]);
                    }

                    classes.Add(new ContentClass(nodes, verified));
                }
            }
        }, cancellationToken);

        foreach (var node in candidate.Files)
        {
            if (node.Dropped)
            {
                media.Follower.Take(node)?.Release(); // in no class: its partial chunk list is not needed
            }
            else if (!grouped.Contains(node))
            {
                classes.Add(new ContentClass([node], verified: true));
            }
        }

        return classes;
    }

    /// <summary>
    /// Compares the located classes of one (format, payload length) by payload and reports each set of equal ones as
    /// one group, every member of each class in it. A class whose located copy drops out meanwhile (vanished, changed)
    /// is compared again through its next live copy (byte-identical, so the same ranges apply) against one class of
    /// each group found so far and each class still alone; the groups are reported once no class is left to retry.
    /// </summary>
    private static void ComparePayloads(ScanState state, long length, List<ContentClass> classes, ChannelWriter<DuplicateGroup> writer, CancellationToken cancellationToken)
    {
        var groups = new List<PayloadGroup>();
        var compared = classes;
        while (compared.Count >= 2)
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

            var matches = new List<(ContentClass[] Classes, bool Verified)>();
            CompareSet(state, new CandidateSet(length, nodes, maps), set =>
            {
                lock (matches) // buckets may settle in parallel
                {
                    foreach (var (members, verified) in set.Groups)
                    {
                        var matched = new ContentClass[members.Length];
                        for (var i = 0; i < members.Length; i++)
                        {
                            matched[i] = classOf[set[members[i]]];
                        }

                        matches.Add((matched, verified));
                    }
                }
            }, cancellationToken);
            foreach (var (matched, verified) in matches)
            {
                PayloadGroup.Merge(groups, matched, verified);
            }

            var retried = false;
            foreach (var found in compared)
            {
                retried |= found.Payload!.Dropped && found.TryNextCopy();
            }

            if (!retried)
            {
                break;
            }

            // Again: one live class per group and every live class still alone.
            compared = [];
            foreach (var group in groups)
            {
                if (group.Classes.Find(static c => !c.Payload!.Dropped) is { } live)
                {
                    compared.Add(live);
                }
            }

            foreach (var found in classes)
            {
                if (found.Group is null && !found.Payload!.Dropped)
                {
                    compared.Add(found);
                }
            }
        }

        foreach (var group in groups)
        {
            var files = new List<DuplicateFile>();
            foreach (var found in group.Classes)
            {
                found.RecheckMembers(state, representativeChecked: true);
                found.AddLiveFiles(files);
            }

            Publish(state, writer, length, files, group.Verified, ContentMatch.MediaPayload);
        }
    }

    /// <summary>Emits a class on its own, as a whole-file group, when it still has two files.</summary>
    private static void EmitClass(ContentClass found, ChannelWriter<DuplicateGroup> writer, ScanState state)
    {
        if (found.Payload is not null)
        {
            if (found.Payload.Dropped)
            {
                found.Representative!.Dropped = true; // changed or vanished while its payload was compared
            }

            found.RecheckMembers(state, representativeChecked: false);
        }

        var files = new List<DuplicateFile>(found.Members.Length);
        found.AddLiveFiles(files);
        Publish(state, writer, found.Members[0].Primary.Length, files, found.Verified, ContentMatch.WholeFile);
    }
}
