using System.Threading.Channels;
using Dedup.Core.Media;

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
    private static void CompareMedia(ScanState state, List<CandidateSet> sets, ChannelWriter<DuplicateGroup> writer, CancellationToken cancellationToken)
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
                if (found.Locate(state, cancellationToken))
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
                var classes = WholeFileClasses(state, candidate, cancellationToken);
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
            var byPayload = new Dictionary<FileNode, ContentClass>(ReferenceEqualityComparer.Instance);
            var keys = new Dictionary<(MediaFormat Format, long Length), List<FileNode>>();
            foreach (var found in located)
            {
                byPayload[found.Payload!] = found;
                var key = (found.Payload!.Format, found.Payload.ContentLength);
                if (!keys.TryGetValue(key, out var members))
                {
                    keys[key] = members = new List<FileNode>(1);
                }

                members.Add(found.Payload);
            }

            var payloadSets = new List<CandidateSet>();
            foreach (var (key, members) in keys)
            {
                if (members.Count >= 2)
                {
                    payloadSets.Add(new CandidateSet(key.Length, members));
                }
                else
                {
                    EmitClass(byPayload[members[0]], writer, state);
                }
            }

            payloadSets.Sort(static (a, b) => b.Cost.CompareTo(a.Cost));
            Parallel.ForEach(payloadSets, parallel, candidate => ComparePayloads(state, candidate, byPayload, writer, cancellationToken));

            // Classes whose payload matched no other class's.
            foreach (var found in located)
            {
                if (!found.Reported)
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
    private static List<ContentClass> WholeFileClasses(ScanState state, CandidateSet candidate, CancellationToken cancellationToken)
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
                node.PngStream?.Release(); // in no class: its partial chunk list is not needed
                node.PngStream = null;
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
    private static void ComparePayloads(ScanState state, CandidateSet candidate, Dictionary<FileNode, ContentClass> byPayload, ChannelWriter<DuplicateGroup> writer, CancellationToken cancellationToken)
    {
        var classes = candidate.Files.ConvertAll(node => byPayload[node]); // the shared map is only read here
        var groups = new List<PayloadGroup>();
        var nodes = candidate.Files;
        while (nodes.Count >= 2)
        {
            var classOf = new Dictionary<FileNode, ContentClass>(ReferenceEqualityComparer.Instance);
            foreach (var found in classes)
            {
                classOf[found.Payload!] = found;
            }

            var matches = new List<(ContentClass[] Classes, bool Verified)>();
            CompareSet(state, new CandidateSet(candidate.Size, nodes), set =>
            {
                lock (matches) // buckets may settle in parallel
                {
                    foreach (var (members, verified) in set.Groups)
                    {
                        matches.Add((Array.ConvertAll(members, i => classOf[set[i]]), verified));
                    }
                }
            }, cancellationToken);
            foreach (var (matched, verified) in matches)
            {
                PayloadGroup.Merge(groups, matched, verified);
            }

            var retried = false;
            foreach (var found in classes)
            {
                retried |= found.Payload!.Dropped && found.TryNextCopy();
            }

            if (!retried)
            {
                break;
            }

            // One live class per group and every live class still alone.
            nodes = [];
            foreach (var group in groups)
            {
                if (group.Classes.Find(c => !c.Payload!.Dropped) is { } live)
                {
                    nodes.Add(live.Payload!);
                }
            }

            nodes.AddRange(classes.Where(c => c.Group is null && !c.Payload!.Dropped).Select(c => c.Payload!));
        }

        foreach (var group in groups)
        {
            var files = new List<DuplicateFile>();
            foreach (var found in group.Classes)
            {
                found.Reported = true;
                found.RecheckMembers(state);
                found.AddLiveFiles(files);
            }

            Publish(state, writer, candidate.Size, files, group.Verified, ContentMatch.MediaPayload);
        }
    }

    /// <summary>Emits a class on its own, as a whole-file group, when it still has two files.</summary>
    private static void EmitClass(ContentClass found, ChannelWriter<DuplicateGroup> writer, ScanState state)
    {
        found.Reported = true;
        if (found.Payload is not null)
        {
            if (found.Payload.Dropped)
            {
                found.Representative!.Dropped = true; // changed or vanished while its payload was compared
            }

            found.RecheckMembers(state);
        }

        var files = new List<DuplicateFile>(found.Members.Length);
        found.AddLiveFiles(files);
        Publish(state, writer, found.Members[0].Primary.Length, files, found.Verified, ContentMatch.WholeFile);
    }

    /// <summary>Reports a group that still has two files, in path order.</summary>
    private static void Publish(ScanState state, ChannelWriter<DuplicateGroup> writer, long size, List<DuplicateFile> files, bool verified, ContentMatch match)
    {
        if (files.Count < 2)
        {
            return;
        }

        files.Sort(static (a, b) => a.Path.CompareTo(b.Path));
        var group = new DuplicateGroup(size, files, verified, match);
        state.AddGroup(group);
        writer.TryWrite(group);
    }
}
