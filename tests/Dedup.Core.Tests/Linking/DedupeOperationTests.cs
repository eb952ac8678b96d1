using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Operations;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// FIDEDUPERANGE's per-range answers (<see cref="DedupeOperation.Dedupe"/>), which the executor's checks normally make
/// unreachable: content that differs is skipped naming the bytes, and a per-destination errno fails the action.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class DedupeOperationTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 355);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for FIDEDUPERANGE")]
    public void Content_that_differs_is_skipped_naming_the_range_and_left_unchanged()
    {
        using var tree = new TempTree(LinkTree.BtrfsMount);
        var other = Content.ToArray();
        other[^1] ^= 0xFF;
        var kept = tree.Write("a.bin", Content);
        var duplicate = tree.Write("b.bin", other);

        var stopped = Dedupe(kept, duplicate, (ulong)Content.Length);

        Assert.Equal(DuplicateActionStatus.Skipped, stopped.Status);
        Assert.Equal("the kernel found the content differs from the kept file in bytes 0–20000; the duplicate's content was not changed", stopped.Message);
        Assert.Equal(other, File.ReadAllBytes(duplicate));
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for FIDEDUPERANGE")]
    public void An_errno_in_the_ranges_status_fails_the_action_with_its_message()
    {
        using var tree = new TempTree(LinkTree.BtrfsMount);
        var kept = tree.Write("a.bin", Content);
        using var keptHandle = File.OpenHandle(kept);

        // No destination descriptor: the ioctl succeeds and the range's status is -EBADF.
        var stopped = Assert.Throws<ActionStoppedException>(() => DedupeOperation.Dedupe((int)keptHandle.DangerousGetHandle(), -1, (ulong)Content.Length));

        Assert.Equal(DuplicateActionStatus.Failed, stopped.Status);
        Assert.Equal("FIDEDUPERANGE failed at byte 0: Bad file descriptor; content unchanged", stopped.Message);
    }

    private static ActionStoppedException Dedupe(string kept, string duplicate, ulong length)
    {
        using var keptHandle = File.OpenHandle(kept);
        using var duplicateHandle = File.OpenHandle(duplicate);
        return Assert.Throws<ActionStoppedException>(() =>
            DedupeOperation.Dedupe((int)keptHandle.DangerousGetHandle(), (int)duplicateHandle.DangerousGetHandle(), length));
    }
}
