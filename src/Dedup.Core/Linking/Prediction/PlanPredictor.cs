using Microsoft.Extensions.Logging;

namespace Dedup.Core.Linking.Prediction;

/// <summary>
/// The plan's predictions of refusals the executor would make, so that a dry run lists them and the reclaimable total
/// leaves them out: whether the file system clones or dedupes at all (probed once per device and plan) and, for hard
/// and symbolic links, the owner, group and permissions rule. Each refusal is worded exactly as the executor words it.
/// </summary>
/// <remarks>
/// Predictions only ever add refusals, and only ones the executor would make anyway; they never replace a check made
/// when applying (which runs in full for every action that is not refused). Anything the prediction cannot tell is
/// left to apply time. Linux, and Windows for clones (the volume's block-cloning flag); elsewhere nothing is predicted. One instance per <c>Plan</c> call.
/// </remarks>
internal sealed partial class PlanPredictor(Linker linker, ILogger logger)
{
    private readonly LinkerCapabilities _capabilities = LinkerCapabilities.Of(linker);

    /// <summary>Probes tried per device before the plan stops asking (each inconclusive probe may be one file's problem).</summary>
    private const int AttemptsPerDevice = 3;

    private readonly Dictionary<ulong, (ProbeResult? Result, int Attempts)> _probed = [];

    /// <summary>Capability probes run for this plan (for tests: once per device when the first one answers).</summary>
    public int ProbesRun { get; private set; }

    /// <summary>The refusal the executor would make for this pair of <paramref name="group"/>, when it can be told now; otherwise <see langword="null"/>.</summary>
    public string? Refuse(DuplicateGroup group, DuplicateFile kept, DuplicateFile duplicate) =>
        OperatingSystem.IsLinux() ? RefuseOnLinux(group, kept, duplicate)
        : OperatingSystem.IsWindows() ? RefuseOnWindows(kept, duplicate)
        : null;

    /// <summary>
    /// The owner, group and permissions the executor's rule will compare for <paramref name="file"/> (the plan's
    /// partitions for linkers that share the kept file's metadata): on Linux its status now, while the name still
    /// leads to the scanned file; otherwise as <paramref name="file"/> records them; <see langword="null"/> when neither is known.
    /// </summary>
    // Stryker disable once Conditional : on Linux the condition holds; off Linux (the Wine test project) there is no status to read
    public Execution.OwnerAndMode.Access? AccessOf(DuplicateFile file) =>
        (OperatingSystem.IsLinux() ? AccessOnLinux(file) : null) ?? Execution.OwnerAndMode.Of(file);

    /// <summary>
    /// The bytes acting on <paramref name="duplicate"/> would free: its length, or on Linux for the built-in clone and
    /// dedupe only its extents no other file shares. <paramref name="alreadyShared"/> tells a duplicate whose data already
    /// is the kept file's (a clone or dedupe done before): there is nothing left to do.
    /// </summary>
    public long Reclaimable(DuplicateFile kept, DuplicateFile duplicate, out bool alreadyShared)
    {
        // Stryker disable once Boolean : on Linux ReclaimableOnLinux sets it; only Windows and macOS read this value (their test projects)
        alreadyShared = false;
        return OperatingSystem.IsLinux() ? ReclaimableOnLinux(kept, duplicate, out alreadyShared) : duplicate.Length;
    }

    /// <summary>
    /// The plan's actions refused because their file system cannot do the operation at all (a probe answered
    /// "unsupported" for its device), grouped by device in order of their first action.
    /// </summary>
    public IReadOnlyList<FileSystemRefusal> FileSystemRefusals(IReadOnlyList<DuplicateAction> actions)
    {
        var byDevice = new Dictionary<ulong, (string Reason, List<DuplicateAction> Actions)>();
        var order = new List<ulong>();
        foreach (var action in actions)
        {
            var device = action.Duplicate.Identity.Device;
            if (action.Refusal is null || !_probed.TryGetValue(device, out var known) || known.Result is not { Outcome: ProbeOutcome.Unsupported } unsupported
                || !string.Equals(unsupported.Detail, action.Refusal, StringComparison.Ordinal))
            {
                continue;
            }

            if (!byDevice.TryGetValue(device, out var refused))
            {
                byDevice[device] = refused = (action.Refusal, []);
                order.Add(device);
            }

            refused.Actions.Add(action);
        }

        return order.Select(d => new FileSystemRefusal { Reason = byDevice[d].Reason, FirstPath = byDevice[d].Actions[0].Path, Actions = byDevice[d].Actions }).ToArray();
    }

    /// <summary>The cached answer of <paramref name="probe"/> for <paramref name="device"/>, asked until one probe tells.</summary>
    private string? Capability(DuplicateActionKind kind, ulong device, Func<ProbeResult> probe)
    {
        _probed.TryGetValue(device, out var known);
        if (known.Result is null && known.Attempts < AttemptsPerDevice)
        {
            ProbesRun++;
            var result = probe();
            LinkingLog.CapabilityProbed(logger, kind, device, result.Outcome, result.Detail);
            known = (result.Outcome == ProbeOutcome.Unknown ? null : result, known.Attempts + 1);
            _probed[device] = known;
        }

        return known.Result is { Outcome: ProbeOutcome.Unsupported } unsupported ? unsupported.Detail : null;
    }
}
