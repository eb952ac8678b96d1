using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The shape of the plan partition tests (PlanPartitionTests, PlanPartitionDetailTests): copies of <see cref="Content"/>
/// written with a mode (and an owner, or a modification time) set by the real tools, scanned, planned, and the plan read back.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
internal static class PartitionFiles
{
    public static readonly byte[] Content = TempTree.RandomBytes(20_000, 361);

    /// <summary>Writes <see cref="Content"/> and sets its mode (and owner) with chmod and chown.</summary>
    public static string Write(LinkTree tree, string name, string mode, string? owner = null)
    {
        var path = tree.Write(name, Content);
        TempTree.Run("chmod", mode, path);
        if (owner is not null)
        {
            TempTree.Run("chown", owner, path);
        }

        return path;
    }

    /// <summary>Writes <see cref="Content"/>, sets its mode and then its modification time.</summary>
    public static string Write(LinkTree tree, string name, string mode, DateTime time)
    {
        var path = Write(tree, name, mode);
        File.SetLastWriteTimeUtc(path, time);
        return path;
    }

    /// <summary>Each action as (kept file, duplicate, refused).</summary>
    public static (string Kept, string Path, bool Refused)[] Summary(DuplicateActionPlan plan) =>
        plan.Actions.Select(x => (x.Kept.Path.ToString(), x.Path.ToString(), x.Refusal is not null)).ToArray();

    /// <summary>The dry run's text.</summary>
    public static string TextOf(DuplicateActionPlan plan)
    {
        using var writer = new StringWriter { NewLine = "\n" };
        plan.WriteTo(writer);
        return writer.ToString();
    }

    public static (uint? Owner, uint? Group) OwnerOf(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return (status.Uid, status.Gid);
    }
}
