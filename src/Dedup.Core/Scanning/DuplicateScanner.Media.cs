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
            Action<FileComparisonSet> settled = set => EmitMerged(state, set, byPayload, writer);
            Parallel.ForEach(payloadSets, parallel, candidate => CompareSet(state, candidate, settled, cancellationToken));

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

    /// <summary>Emits groups of payload-equal classes: every member of each class, one group per match.</summary>
    private static void EmitMerged(ScanState state, FileComparisonSet set, Dictionary<FileNode, ContentClass> byPayload, ChannelWriter<DuplicateGroup> writer)
    {
        foreach (var (members, verified) in set.Groups)
        {
            var files = new List<DuplicateFile>();
            var allVerified = verified;
            foreach (var index in members)
            {
                var found = byPayload[set[index]];
                found.Reported = true; // each class's payload node is in exactly one group
                allVerified &= found.Verified;
                found.RecheckMembers(state);
                found.AddLiveFiles(files);
            }

            Publish(state, writer, set.Length, files, allVerified, ContentMatch.MediaPayload);
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

    /// <summary>Byte-identical distinct files (or one file), and where located, its payload.</summary>
    private sealed class ContentClass(FileNode[] members, bool verified)
    {
        public FileNode[] Members { get; } = members;

        /// <summary>Whether the members were compared byte by byte (not accepted on hash equality).</summary>
        public bool Verified { get; } = verified;

        /// <summary>The member that was located (the first one that could be opened).</summary>
        public FileNode? Representative { get; private set; }

        /// <summary>The representative with its payload ranges, once located.</summary>
        public FileNode? Payload { get; private set; }

        /// <summary>Set once the class was emitted, alone or merged with payload-equal classes (or found too small to emit).</summary>
        public bool Reported { get; set; }

        /// <summary>
        /// Opens one live member to find the class's payload: the first that opens (a copy that vanished since the
        /// first stage is reported and passed over). <see langword="false"/> when it is not media or none opens.
        /// </summary>
        public bool Locate(ScanState state, CancellationToken cancellationToken)
        {
            if (FollowedPng(state))
            {
                return true;
            }

            foreach (var member in Members)
            {
                if (member.Dropped)
                {
                    continue;
                }

                // A reader like any other: on a disk that admits one reader, locating waits its turn.
                using var token = state.Drives.Enter(member.Primary.Identity.Device, cancellationToken);
                using var handle = FileOpener.TryOpen(member.Primary, state);
                if (handle is null)
                {
                    member.Dropped = true; // reported
                    continue;
                }

                Representative = member;
                var ranges = new List<ByteRange>();
                var located = MediaContent.TryLocate(handle, member.Primary.Length, state.MediaOptions, out var format, ranges, out var bytesRead);
                state.AddBytesRead(bytesRead);
                if (located)
                {
                    Payload = new FileNode(member.Primary, [.. ranges], format);
                }

                return located;
            }

            return false;
        }

        /// <summary>
        /// A PNG member read whole in the first stage already has its chunk list: no open, no second pass. It must
        /// still be there unchanged (one status call), as the payload stage will read it.
        /// </summary>
        private bool FollowedPng(ScanState state)
        {
            FileNode? followed = null;
            ByteRange[]? ranges = null;
            foreach (var member in Members)
            {
                if (followed is null && !member.Dropped && member.PngStream is { } stream && stream.TryGetPayload(out var found))
                {
                    if (FileOpener.IsUnchanged(member.Primary, null, state))
                    {
                        (followed, ranges) = (member, found);
                    }
                    else
                    {
                        member.Dropped = true; // reported
                    }
                }

                member.PngStream?.Release(); // the lists are not needed any more
                member.PngStream = null;
            }

            if (followed is null)
            {
                return false;
            }

            Representative = followed;
            Payload = new FileNode(followed.Primary, ranges, MediaFormat.Png);
            return true;
        }

        /// <summary>Adds the members still in the scan.</summary>
        public void AddLiveFiles(List<DuplicateFile> files)
        {
            foreach (var member in Members)
            {
                if (!member.Dropped)
                {
                    files.Add(member.ToDuplicateFile());
                }
            }
        }

        /// <summary>
        /// The members were last checked when the first stage ended or the class was located, which may be long
        /// before its group is reported; each is checked again (one status call) and left out, with an error, if
        /// it changed.
        /// </summary>
        public void RecheckMembers(ScanState state)
        {
            foreach (var member in Members)
            {
                if (!member.Dropped && !FileOpener.IsUnchanged(member.Primary, null, state))
                {
                    member.Dropped = true;
                }
            }
        }
    }
}
