using Dedup.Core.IO;
using Dedup.Core.Scanning;

namespace Dedup.Core.Media.Pipeline;

/// <summary>
/// Media mode, a pipeline of its own that composes the whole-file one. Byte-identical files have identical payloads,
/// so same-size files are first settled exactly as in whole-file mode (<see cref="WholeFileStage"/>: sequential
/// reads, probes that stop at the first differing page) into classes; only one file per class — and each file of a
/// unique size — is then opened to locate its payload. Classes of one format and payload length are compared by
/// payload (<see cref="PayloadStage"/>); equal ones are reported as one payload group of one copy per class, and
/// each class of two or more copies as its own whole-file group. Locating costs a few reads for most
/// formats, but a PNG's chunk walk reads the whole file: locating every copy too made media mode a third slower than
/// whole-file mode on a folder of copies, and a PNG the first stage read whole is not walked at all
/// (<see cref="PngFollower"/>, the reader's observer).
/// </summary>
internal sealed class MediaScan : ICompareStage
{
    public MediaScan(DuplicateFinderOptions options)
    {
        Options = MediaOptions.Default with { Buffers = options.Buffers };
        Follower = new PngFollower(Options);
    }

    /// <summary>The locators' settings, reading through the scan's buffer pool.</summary>
    public MediaOptions Options { get; }

    /// <summary>Follows PNG chunks in the whole-file stage's reads.</summary>
    public PngFollower Follower { get; }

    public bool KeepsSingles => true;

    public bool AllowsListingKeys => false; // a file's payload is not its first bytes

    public IReadObserver? Observer => Follower;

    public StageOutcome Unfinished => StageOutcome.None;

    public StageOutcome Run(ScanContext context, List<CandidateSet> sets, ScanOutput output, CancellationToken cancellationToken)
    {
        var threads = ScanThreads.Required; // blocking work stays off the host's thread pool
        var wholeFile = new WholeFileStage(context);

        // Stage 1: whole-file classes, each located through one member while its pages are still cached. The
        // classes of a set that split are located after the loop, in parallel: a set of many distinct files must
        // not locate them all on one thread, and a nested loop would exceed the scan's thread limit.
        var located = new List<ContentClass>();
        var deferred = new List<ContentClass>();
        void Locate(ContentClass found)
        {
            if (found.Locate(context, this, cancellationToken))
            {
                lock (located)
                {
                    located.Add(found);
                }
            }
            else
            {
                PublishAlone(context, output, found); // not media (or gone): its whole-file group is final
            }
        }

        threads.ForEach(sets, candidate =>
        {
            var classes = WholeFileClasses(wholeFile, candidate, cancellationToken);
            context.Compared.Settled(candidate); // its classes are known; locating and payloads are not counted
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
        }, cancellationToken);
        threads.ForEach(deferred, Locate, cancellationToken);

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
        var payloads = new PayloadStage(wholeFile);
        threads.ForEach(payloadSets, keyed =>
        {
            foreach (var group in payloads.Compare(keyed.Key.Length, keyed.Value, cancellationToken))
            {
                Publish(context, output, keyed.Key.Format, keyed.Key.Length, group);
            }
        }, cancellationToken);

        // Classes whose payload matched no other class's (or had no other of its format and length).
        foreach (var found in located)
        {
            if (found.Group is null)
            {
                PublishAlone(context, output, found);
            }
        }

        return StageOutcome.None;
    }

    /// <summary>Splits one same-size set into byte-identical classes (a file of a unique size is a class of one).</summary>
    private List<ContentClass> WholeFileClasses(WholeFileStage wholeFile, CandidateSet candidate, CancellationToken cancellationToken)
    {
        var classes = new List<ContentClass>();
        if (candidate.Files.Count == 1)
        {
            classes.Add(new ContentClass([candidate.Files[0]], verified: true));
            return classes;
        }

        var grouped = new HashSet<FileNode>(ReferenceEqualityComparer.Instance);
        foreach (var group in wholeFile.Compare(candidate, cancellationToken))
        {
            grouped.UnionWith(group.Members);
            classes.Add(new ContentClass(group.Members, group.Verified));
        }

        foreach (var node in candidate.Files)
        {
            if (wholeFile.Context.Live.IsDropped(node))
            {
                Follower.Take(node)?.Release(); // in no class: its partial chunk list is not needed
            }
            else if (!grouped.Contains(node))
            {
                classes.Add(new ContentClass([node], verified: true));
            }
        }

        return classes;
    }

    /// <summary>
    /// Reports payload-equal classes: each class that still has two copies as a whole-file group of its own (the
    /// group actions act on), and one group of payload-equal files holding one copy of each class, the first by path.
    /// Listing every copy there would hide the exact copies in a group no action may touch, and count them twice.
    /// </summary>
    private static void Publish(ScanContext context, ScanOutput output, MediaFormat format, long length, PayloadGroup group)
    {
        var files = new List<DuplicateFile>(group.Classes.Count);
        foreach (var found in group.Classes)
        {
            found.RecheckMembers(context, representativeChecked: true);
            var copies = new List<DuplicateFile>(found.Members.Length);
            found.AddLiveFiles(context.Live, copies);
            if (copies.Count == 0)
            {
                continue;
            }

            var first = copies[0];
            foreach (var copy in copies)
            {
                first = copy.Path.CompareTo(first.Path) < 0 ? copy : first;
            }

            files.Add(first);
            output.Publish(found.Members[0].Primary.Length, copies, found.Verified, ContentMatch.WholeFile);
        }

        output.Publish(length, files, group.Verified, ContentMatch.MediaPayload, format);
    }

    /// <summary>Reports a class on its own, as a whole-file group, when it still has two files.</summary>
    private static void PublishAlone(ScanContext context, ScanOutput output, ContentClass found)
    {
        if (found.Payload is not null)
        {
            if (context.Live.IsDropped(found.Payload))
            {
                context.Live.Drop(found.Representative!); // changed or vanished while its payload was compared
            }

            found.RecheckMembers(context, representativeChecked: false);
        }

        var files = new List<DuplicateFile>(found.Members.Length);
        found.AddLiveFiles(context.Live, files);
        output.Publish(found.Members[0].Primary.Length, files, found.Verified, ContentMatch.WholeFile);
    }
}
