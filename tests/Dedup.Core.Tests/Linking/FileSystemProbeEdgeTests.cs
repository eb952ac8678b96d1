using System.Runtime.InteropServices;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Prediction;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The capability probe's edges: a per-file answer (a destination on another file system) stays unknown, never a
/// refusal; a kept file readable but not owned (no <c>O_NOATIME</c>) is still probed; what is not a regular file is
/// not the kept file; and no descriptor is left open on any path. In the small mount's collection: it uses that mount.
/// </summary>
[Collection(SmallFsCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed partial class FileSystemProbeEdgeTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(10_000, 354);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for clones and FIDEDUPERANGE", "DEDUP_TEST_SMALLFS", "a second, ext4 mount")]
    public void A_probe_file_on_another_file_system_is_unknown_not_a_refusal()
    {
        using var btrfs = new TempTree(LinkTree.BtrfsMount);
        using var ext4 = new TempTree(LinkTree.SmallMount);
        var kept = btrfs.Write("a.bin", Content);
        var file = FileOf(kept);
        var device = TestNative.Device(ext4.Root);

        // FICLONE answers EXDEV itself; FIDEDUPERANGE answers it in the range's status (a negative errno).
        Assert.Equal(new ProbeResult(ProbeOutcome.Unknown, Libc.Message(18)), FileSystemProbe.Probe(ProbedOperation.Clone, kept, file, ext4.Root, device));
        Assert.Equal(new ProbeResult(ProbeOutcome.Unknown, Libc.Message(18)), FileSystemProbe.Probe(ProbedOperation.Dedupe, kept, file, ext4.Root, device));
        Assert.Empty(OpenDescriptors.Under(btrfs.Root, includeRoot: true));
        Assert.Empty(OpenDescriptors.Under(ext4.Root, includeRoot: true));
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for clones and FIDEDUPERANGE")]
    public void Probes_that_answer_keep_no_descriptor_open()
    {
        using var tree = new TempTree(LinkTree.BtrfsMount);
        var kept = tree.Write("a.bin", Content);
        var file = FileOf(kept);

        Assert.Equal(ProbeOutcome.Supported, FileSystemProbe.Probe(ProbedOperation.Clone, kept, file, tree.Root, file.Identity.Device).Outcome);
        Assert.Equal(ProbeOutcome.Supported, FileSystemProbe.Probe(ProbedOperation.Dedupe, kept, file, tree.Root, file.Identity.Device).Outcome);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void A_folder_with_the_kept_files_identity_is_not_the_kept_file_and_stays_closed()
    {
        using var tree = new TempTree();
        var folder = tree.PathOf("sub");
        Directory.CreateDirectory(folder);
        var asFile = FileOf(folder);

        Assert.Equal(
            new ProbeResult(ProbeOutcome.Unknown, "the kept file is no longer the scanned file"),
            FileSystemProbe.Probe(ProbedOperation.Clone, folder, asFile, tree.Root, asFile.Identity.Device));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for clones and FIDEDUPERANGE", RequiresRoot = true)]
    public void A_kept_file_the_user_does_not_own_is_opened_without_O_NOATIME()
    {
        using var tree = new TempTree(LinkTree.BtrfsMount);
        var kept = tree.Write("a.bin", Content);
        TempTree.Run("chmod", "0777", tree.Root);
        TempTree.Run("chmod", "0644", kept);
        var file = FileOf(kept);
        ProbeResult? result = null;

        // setfsuid is per thread: only this thread opens as nobody (no CAP_FOWNER, so O_NOATIME gives EPERM).
        var thread = new Thread(() =>
        {
            _ = SetFsUid(65534);
            try
            {
                result = FileSystemProbe.Probe(ProbedOperation.Clone, kept, file, tree.Root, file.Identity.Device);
            }
            finally
            {
                _ = SetFsUid(0);
            }
        });
        thread.Start();
        thread.Join();

        Assert.Equal(new ProbeResult(ProbeOutcome.Supported, "FICLONE works"), result);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LibraryImport("libc", EntryPoint = "setfsuid")]
    private static partial int SetFsUid(uint uid);

    private static DuplicateFile FileOf(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return new DuplicateFile(AbsolutePath.Parse(path), [], new FileIdentity(status.Device, status.Ino), (long)status.Size, (int)status.NLink, DateTime.UtcNow);
    }
}
