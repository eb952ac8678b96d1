using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Operations;
using Dedup.Core.Linking.Prediction;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The plan's capability probe (<see cref="FileSystemProbe"/>) on real files: a file system lacking the operation is a
/// refusal worded as applying words it; anything it cannot tell is unknown, never a refusal (a prediction must not hide
/// an action that would work).
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class FileSystemProbeTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(10_000, 352);

    [LinuxFact(TempFileSystem = "ext4")]
    public void Ext4_lacks_clone_and_dedupe_with_the_reason_applying_gives()
    {
        using var tree = new TempTree();
        var kept = tree.Write("a.bin", Content);

        var clone = Probe(ProbedOperation.Clone, kept, tree.Root);
        var dedupe = Probe(ProbedOperation.Dedupe, kept, tree.Root);

        Assert.Equal(new ProbeResult(ProbeOutcome.Unsupported, CloneOperation.Unsupported(Libc.EOPNOTSUPP)), clone);
        Assert.Equal(ProbeOutcome.Unsupported, dedupe.Outcome);
        Assert.StartsWith("the file system cannot dedupe this file (FIDEDUPERANGE: ", dedupe.Detail, StringComparison.Ordinal);
        Assert.Equal([kept], Directory.GetFileSystemEntries(tree.Root)); // the probe file had no name
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for clones and FIDEDUPERANGE")]
    public void Btrfs_clones_and_dedupes()
    {
        using var tree = new TempTree(LinkTree.BtrfsMount);
        var kept = tree.Write("a.bin", Content);

        Assert.Equal(new ProbeResult(ProbeOutcome.Supported, "FICLONE works"), Probe(ProbedOperation.Clone, kept, tree.Root));
        Assert.Equal(new ProbeResult(ProbeOutcome.Supported, "FIDEDUPERANGE works"), Probe(ProbedOperation.Dedupe, kept, tree.Root));
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public void What_the_probe_cannot_tell_is_unknown_with_its_reason()
    {
        using var tree = new TempTree();
        var kept = tree.Write("a.bin", Content);
        var empty = tree.Write("empty.bin", []);
        var other = tree.Write("other.bin", Content);
        var link = tree.Symlink(kept, "link.bin");
        var file = FileOf(kept);

        Assert.Equal(
            new ProbeResult(ProbeOutcome.Unknown, "the kept file is empty"),
            Probe(ProbedOperation.Dedupe, empty, tree.Root));
        Assert.Equal(
            new ProbeResult(ProbeOutcome.Unknown, "the kept file is no longer the scanned file"),
            FileSystemProbe.Probe(ProbedOperation.Clone, other, file, tree.Root, file.Identity.Device));
        Assert.Equal(
            new ProbeResult(ProbeOutcome.Unknown, "the kept file is no longer the scanned file"),
            FileSystemProbe.Probe(ProbedOperation.Clone, kept, new DuplicateFile(file.Path, [], new FileIdentity(file.Identity.Device + 1, file.Identity.FileId), Content.Length, 1, DateTime.UtcNow), tree.Root, file.Identity.Device));
        Assert.Equal(
            new ProbeResult(ProbeOutcome.Unknown, "cannot open the kept file: " + Libc.Message(40)), // ELOOP: a link is not followed
            FileSystemProbe.Probe(ProbedOperation.Clone, link, file, tree.Root, file.Identity.Device));
        Assert.Equal(
            new ProbeResult(ProbeOutcome.Unknown, "cannot open the kept file: " + Libc.Message(2)),
            FileSystemProbe.Probe(ProbedOperation.Clone, tree.PathOf("missing.bin"), file, tree.Root, file.Identity.Device));
        Assert.Equal(
            new ProbeResult(ProbeOutcome.Unknown, "O_TMPFILE in the duplicate's folder: " + Libc.Message(2)),
            FileSystemProbe.Probe(ProbedOperation.Clone, kept, file, tree.PathOf("gone"), file.Identity.Device));
        Assert.Equal(
            new ProbeResult(ProbeOutcome.Unknown, "the duplicate's folder is not on the duplicate's file system"),
            FileSystemProbe.Probe(ProbedOperation.Clone, kept, file, tree.Root, file.Identity.Device + 1));
        Assert.Equal(4, Directory.GetFileSystemEntries(tree.Root).Length);
    }

    private static ProbeResult Probe(ProbedOperation operation, string keptPath, string folder)
    {
        var kept = FileOf(keptPath);
        return FileSystemProbe.Probe(operation, keptPath, kept, folder, kept.Identity.Device);
    }

    private static DuplicateFile FileOf(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return new DuplicateFile(AbsolutePath.Parse(path), [], new FileIdentity(status.Device, status.Ino), (long)status.Size, (int)status.NLink, DateTime.UtcNow);
    }
}
