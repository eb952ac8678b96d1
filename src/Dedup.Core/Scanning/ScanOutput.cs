using System.Threading.Channels;

namespace Dedup.Core.Scanning;

/// <summary>Where a scan's groups leave it: shown to its features, counted in the summary and streamed to the caller as each is found.</summary>
internal sealed class ScanOutput(ScanRun run, ChannelWriter<DuplicateGroup> writer)
{
    /// <summary>Reports a group that still has two files, in path order; <paramref name="format"/> is a payload match's container.</summary>
    public void Publish(long size, List<DuplicateFile> files, bool verified, ContentMatch match, MediaFormat? format = null)
    {
        if (files.Count < 2)
        {
            return;
        }

        files.Sort(static (a, b) => a.Path.CompareTo(b.Path));
        foreach (var feature in run.Features)
        {
            feature.Settled(files);
        }

        var group = new DuplicateGroup(size, files, verified, match) { Roots = run.Context.Roots, MediaFormat = format };
        foreach (var feature in run.Features)
        {
            if (feature.Holds(group))
            {
                return; // counted and streamed when the feature returns it
            }
        }

        run.AddGroup(group);
        writer.TryWrite(group);
    }

    /// <summary>Reports byte-identical files found by the whole-file stage.</summary>
    public void PublishWholeFile(long size, SettledGroup group)
    {
        var files = new List<DuplicateFile>(group.Members.Length);
        foreach (var member in group.Members)
        {
            files.Add(member.ToDuplicateFile(run.Machine));
        }

        Publish(size, files, group.Verified, ContentMatch.WholeFile);
    }
}
