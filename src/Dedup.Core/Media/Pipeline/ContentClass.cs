using Dedup.Core.IO;
using Dedup.Core.Pooling;
using Dedup.Core.Scanning;

namespace Dedup.Core.Media.Pipeline;

/// <summary>Byte-identical distinct files (or one file), and where located, its payload.</summary>
internal sealed class ContentClass(FileNode[] members, bool verified)
{
    public FileNode[] Members { get; } = members;

    /// <summary>Whether the members were compared byte by byte (not accepted on hash equality).</summary>
    public bool Verified { get; } = verified;

    /// <summary>The member that was located (the first one that could be opened).</summary>
    public FileNode? Representative { get; private set; }

    /// <summary>The representative as read in the payload stage (a node of its own, which drops out on its own), once located.</summary>
    public FileNode? Payload { get; private set; }

    /// <summary>The located payload's format and ranges, read through for every copy.</summary>
    public PayloadMap? Map { get; private set; }

    /// <summary>The payload-equal classes this one was merged with, if any.</summary>
    public PayloadGroup? Group { get; set; }

    /// <summary>
    /// After the located copy dropped out: the next live copy becomes the representative, with the same payload
    /// ranges (the copies are byte-identical). <see langword="false"/> when none is left.
    /// </summary>
    public bool TryNextCopy(ScanContext context)
    {
        var live = context.Live;
        live.Drop(Representative!);
        var next = Array.Find(Members, live.IsLive);
        if (next is null)
        {
            return false;
        }

        Representative = next;
        Payload = new FileNode(next.Primary);
        return true;
    }

    /// <summary>
    /// Opens one live member to find the class's payload: the first that opens (a copy that vanished since the
    /// first stage is reported and passed over). <see langword="false"/> when it is not media or none opens.
    /// </summary>
    public bool Locate(ScanContext context, MediaScan media, CancellationToken cancellationToken)
    {
        if (FollowedPng(context.Live, media.Follower))
        {
            return true;
        }

        foreach (var member in Members)
        {
            if (context.Live.IsDropped(member))
            {
                continue;
            }

            // A reader like any other: on a disk that admits one reader, locating waits its turn.
            using var token = context.Drives.Enter(member.Primary.Identity.Device, cancellationToken);
            var file = context.Reader.TryOpen(member);
            if (!file.IsOpen)
            {
                context.Live.Drop(member); // reported
                continue;
            }

            try
            {
                Representative = member;
                using var ranges = ListPool<ByteRange>.Shared.RentScoped();
                var located = MediaContent.TryLocate(context.Reader, file, member.Primary.Length, media.Options, out var format, ranges.List);
                if (located)
                {
                    Payload = new FileNode(member.Primary);
                    Map = new PayloadMap([.. ranges.List], format);
                }

                return located;
            }
            finally
            {
                file.Close();
            }
        }

        return false;
    }

    /// <summary>
    /// A PNG member read whole in the first stage already has its chunk list: no open, no second pass. Should it
    /// have changed since, the payload stage's open notices and moves on to the next copy, and a class reported
    /// alone is re-checked first.
    /// </summary>
    private bool FollowedPng(LiveFiles live, PngFollower follower)
    {
        FileNode? followed = null;
        ByteRange[]? ranges = null;
        foreach (var member in Members)
        {
            var stream = follower.Take(member);
            if (followed is null && live.IsLive(member) && stream is not null && stream.TryGetPayload(out var found))
            {
                (followed, ranges) = (member, found);
            }

            stream?.Release(); // the lists are not needed any more
        }

        if (followed is null)
        {
            return false;
        }

        Representative = followed;
        Payload = new FileNode(followed.Primary);
        Map = new PayloadMap(ranges!, MediaFormat.Png);
        return true;
    }

    /// <summary>Adds the members still in the scan.</summary>
    public void AddLiveFiles(LiveFiles live, List<DuplicateFile> files)
    {
        foreach (var member in Members)
        {
            if (live.IsLive(member))
            {
                files.Add(member.ToDuplicateFile());
            }
        }
    }

    /// <summary>
    /// The members were last checked when the first stage ended or the class was located, which may be long
    /// before its group is reported; each is checked again (one status call) and left out, with an error, if
    /// it changed. With <paramref name="representativeChecked"/> (its payload was just grouped, and the group
    /// checked) the representative is not checked twice.
    /// </summary>
    public void RecheckMembers(ScanContext context, bool representativeChecked)
    {
        var live = context.Live;
        foreach (var member in Members)
        {
            if (representativeChecked && member == Representative && live.IsLive(Payload!))
            {
                // Its check ran on the payload node: what that check saw is what reports carry for the file.
                member.LastChangeTimeUtc = Payload!.LastChangeTimeUtc;
                continue;
            }

            if (live.IsLive(member) && !context.Reader.IsUnchanged(member))
            {
                live.Drop(member);
            }
        }
    }
}
