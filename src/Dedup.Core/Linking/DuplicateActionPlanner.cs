using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Prediction;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.Linking;

/// <summary>Turns duplicate groups into a <see cref="DuplicateActionPlan"/>. Create one with <see cref="DuplicateActionPlanBuilder"/>.</summary>
public sealed partial class DuplicateActionPlanner
{
    private readonly ILogger _logger;

    internal DuplicateActionPlanner(Linker linker, IReadOnlyList<KeepRule> rules, ILogger logger)
    {
        Linker = linker;
        Capabilities = LinkerCapabilities.Of(linker);
        KeepRules = rules;
        _logger = logger;
    }

    /// <summary>What happens to each duplicate.</summary>
    public Linker Linker { get; }

    /// <summary>Protected and reference folders (<see cref="DuplicateActionPlanBuilder.Protect"/>, <see cref="DuplicateActionPlanBuilder.Reference"/>).</summary>
    internal Protection Protection { get; init; } = Protection.None;

    /// <summary>The journal plans carry (<see cref="DuplicateActionPlanBuilder.UseJournal"/>), or <see langword="null"/>.</summary>
    internal Journal.ActionJournal? Journal { get; init; }

    /// <summary>What the linker does, read once.</summary>
    internal LinkerCapabilities Capabilities { get; }

    /// <summary>The rules deciding which file stays, in order.</summary>
    public IReadOnlyList<KeepRule> KeepRules { get; }

    /// <summary>
    /// Plans the actions for <paramref name="groups"/>; nothing on disk is changed. On Linux the plan predicts the
    /// refusals applying would make and lists them as <see cref="DuplicateAction.Refusal"/>: clone and dedupe where
    /// the file system lacks them (probed once per file system, into an unnamed <c>O_TMPFILE</c> file that vanishes
    /// when closed), hard or symbolic links between files whose owner, group or permissions differ, and groups without
    /// a scanned root holding their files. Each group is first split by what the linker can do (one device for hard
    /// links, clones and dedupe; one owner, group and permissions for links), and each part keeps one file by the keep
    /// rules. Applying still re-checks everything; see <c>docs/linking.md</c>.
    /// </summary>
    /// <param name="groups">Groups from a scan (or from <see cref="Linking.DuplicateReportExtensions.RecheckGroups"/>).</param>
    /// <returns>The plan.</returns>
    public DuplicateActionPlan Plan(IEnumerable<DuplicateGroup> groups)
    {
        ArgumentNullException.ThrowIfNull(groups);
        var actions = new List<DuplicateAction>();
        var undecided = new List<DuplicateGroup>();
        var predictor = new PlanPredictor(Linker, _logger);
        var trash = Topology.TrashLocator.Create();
        var protection = Protection.Begin();
        var unreferenced = new List<DuplicateGroup>();
        foreach (var found in groups)
        {
            // A group across machines: only the files compared on this machine are acted on (a part of fewer than two, none).
            if (found?.LocalPart() is not { } group)
            {
                ArgumentNullException.ThrowIfNull(found, nameof(groups));
                continue;
            }

            if (!protection.IsReferenced(group))
            {
                unreferenced.Add(group); // no copy under a reference folder: not ours to act on
                continue;
            }

            PlanGroup(group, actions, undecided, predictor, trash, protection);
        }

        var plan = new DuplicateActionPlan(Linker, actions, TemporaryFiles.FindLeftovers(actions.Select(a => a.Path.Parent?.ToString()).OfType<string>()))
        {
            UndecidedGroups = undecided,
            UnreferencedGroups = unreferenced,
            Logger = _logger,
            Journal = Journal,
            ProbesRun = predictor.ProbesRun,
            FileSystemRefusals = predictor.FileSystemRefusals(actions),
        };
        var refused = 0;
        foreach (var action in actions.Where(a => a.Refusal is not null))
        {
            refused++;
            LinkingLog.RefusedAtPlanTime(_logger, action);
        }

        LinkingLog.PlanCreated(_logger, plan, refused);
        return plan;
    }

    /// <summary>Plans the actions for groups as a scan streams them; nothing on disk is touched.</summary>
    /// <param name="groups">Groups from <see cref="DuplicateFinder.FindAsync(CancellationToken)"/>.</param>
    /// <param name="cancellationToken">Cancels the enumeration.</param>
    /// <returns>The plan.</returns>
    public async ValueTask<DuplicateActionPlan> PlanAsync(IAsyncEnumerable<DuplicateGroup> groups, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(groups);
        var list = new List<DuplicateGroup>();
        await foreach (var group in groups.WithCancellation(cancellationToken).ConfigureAwait(false))
        {
            list.Add(group);
        }

        return Plan(list);
    }

    /// <summary>File systems that never show one file under two identities; see <see cref="RefuseForGroup"/>.</summary>
    private static readonly HashSet<string> s_localFileSystems = new(StringComparer.Ordinal)
    {
        "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "zfs", "jfs", "reiserfs", "tmpfs", "vfat", "exfat", "ntfs", "ntfs3", "hfsplus", "apfs",
    };

    private static bool IsLocal(string? fileSystemType) => fileSystemType is not null && s_localFileSystems.Contains(fileSystemType);

    private Lazy<Topology.IDriveTopology> _topology = new(Topology.DriveTopology.CreateDefault);

    /// <summary>Test seam: the topology telling each device's file-system type, instead of the system's.</summary>
    internal void UseTopology(Topology.IDriveTopology topology) => _topology = new(() => topology);

    /// <summary>Refusals that depend on the group rather than on the linker.</summary>
    private string? RefuseForGroup(DuplicateGroup group, DuplicateFile kept, DuplicateFile duplicate, Topology.TrashLocator trash)
    {
        if (group.Match != ContentMatch.WholeFile)
        {
            return "media-payload match: the files differ byte for byte (tags or metadata), so neither replaces the other";
        }

        if (trash.IsDisposable(kept))
        {
            // Kept only when its part has nothing better: the whole group, or a part the action cannot join the others to.
            return group.Files.All(trash.IsDisposable)
                ? $"every copy is in a trash folder or is a temporary file ({kept.Path.ToDisplayString()}); nothing is kept outside it"
                : $"every copy this one could be joined to is in a trash folder or is a temporary file ({kept.Path.ToDisplayString()}); the copies outside it are on another file system or have another owner, group or permissions, so nothing is done";
        }

        // Overlay, FUSE and network mounts can show one file under two identities; across devices, deleting
        // or replacing "the other copy" could then remove the only one. (A linker that needs one device refuses
        // the pair itself.)
        if (!Capabilities.NeedsSameDevice && kept.Identity.Device != duplicate.Identity.Device)
        {
            var keptFs = _topology.Value.GetDevice(kept.Identity.Device).FileSystemType;
            var duplicateFs = _topology.Value.GetDevice(duplicate.Identity.Device).FileSystemType;
            if (!IsLocal(keptFs) || !IsLocal(duplicateFs))
            {
                return $"kept and duplicate are on different file systems ({keptFs ?? "unknown"}, {duplicateFs ?? "unknown"}), one of which may show the same file under another identity; refused so the only copy is never removed";
            }
        }

        return null;
    }

    /// <summary>Plans the pairs of one group: each file joined to the kept file of its partition (see <see cref="PartitionsOf"/>).</summary>
    private void PlanGroup(DuplicateGroup group, List<DuplicateAction> actions, List<DuplicateGroup> undecided, PlanPredictor predictor, Topology.TrashLocator trash, ProtectionCheck protection)
    {
        // One partition (the action can join every file to any other; always so for delete and trash) keeps one file,
        // as ever: a group holds at least two files (its constructor refuses fewer), so at least one is acted on.
        foreach (var (kept, duplicate) in PairsOf(group, PartitionsOf(group, predictor), undecided, trash, protection.IsProtected))
        {
            PlanPair(group, kept, duplicate, actions, predictor, trash, protection);
        }
    }

    private void PlanPair(DuplicateGroup group, DuplicateFile kept, DuplicateFile duplicate, List<DuplicateAction> actions, PlanPredictor predictor, Topology.TrashLocator trash, ProtectionCheck protection)
    {
        if (ReferenceEquals(duplicate, kept) || duplicate.Identity == kept.Identity || protection.IsProtected(duplicate))
        {
            return; // the kept file, names already linked to it and protected copies: nothing to do, nothing to reclaim
        }

        // Predictions last: they only ever add refusals the executor would make (and cost a probe or a status).
        var refusal = RefuseForGroup(group, kept, duplicate, trash) ?? Linker.RefuseAtPlanTime(kept, duplicate) ?? predictor.Refuse(group, kept, duplicate);
        // Stryker disable once Boolean : read only when refusal is null, after Reclaimable has set it
        var alreadyShared = false;
        var reclaimable = refusal is null ? predictor.Reclaimable(kept, duplicate, out alreadyShared) : 0;
        if (refusal is null && alreadyShared)
        {
            return; // a clone or dedupe done before: the data already is the kept file's, nothing to do or reclaim
        }

        if (Capabilities.ActsOnData)
        {
            // Dedupe acts on the file's data, once, whatever its names.
            actions.Add(new DuplicateAction(Linker.Kind, group, kept, duplicate, duplicate.Path, reclaimable, refusal));
            return;
        }

        var names = new[] { duplicate.Path }.Concat(duplicate.OtherLinks).ToArray();

        // The data is freed only when no name is left: all names found here, and no link outside the scan.
        var freed = refusal is null && duplicate.LinkCount <= names.Length ? reclaimable : 0;
        for (var i = 0; i < names.Length; i++)
        {
            actions.Add(new DuplicateAction(Linker.Kind, group, kept, duplicate, names[i], i == names.Length - 1 ? freed : 0, refusal));
        }
    }
}
