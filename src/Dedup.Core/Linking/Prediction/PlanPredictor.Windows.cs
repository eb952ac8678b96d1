using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Operations;

namespace Dedup.Core.Linking.Prediction;

// Windows: whether the volume clones at all, from its FILE_SUPPORTS_BLOCK_REFCOUNTING flag (read through the kept file
// opened for its attributes only: nothing is created or read). Symbolic-link permission is not predicted: only
// creating a link tells for sure, and a plan changes nothing on disk.
internal sealed partial class PlanPredictor
{
    [SupportedOSPlatform("windows")]
    private string? RefuseOnWindows(DuplicateFile kept, DuplicateFile duplicate) =>
        _capabilities.Probe == ProbedOperation.Clone ? Capability(linker.Kind, duplicate.Identity.Device, () => ProbeVolume(kept.Path.ToString())) : null;

    [SupportedOSPlatform("windows")]
    private static ProbeResult ProbeVolume(string keptPath)
    {
        using var handle = WindowsFileIds.TryOpen(keptPath, followLink: false, out var error);
        if (handle is null)
        {
            return new ProbeResult(ProbeOutcome.Unknown, "cannot open the kept file: " + System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(error));
        }

        var refusal = BlockCloneOperation.VolumeRefusal(handle, out var known);
        return !known ? new ProbeResult(ProbeOutcome.Unknown, "the volume did not say whether it clones")
            : refusal is null ? new ProbeResult(ProbeOutcome.Supported, "the volume has FILE_SUPPORTS_BLOCK_REFCOUNTING")
            : new ProbeResult(ProbeOutcome.Unsupported, refusal);
    }
}
