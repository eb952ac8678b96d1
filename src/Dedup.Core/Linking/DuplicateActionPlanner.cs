namespace Dedup.Core.Linking;

/// <summary>Turns duplicate groups into a <see cref="DuplicateActionPlan"/>. Create one with <see cref="DuplicateActionPlanBuilder"/>.</summary>
public sealed class DuplicateActionPlanner
{
    internal DuplicateActionPlanner(ILinker linker, IReadOnlyList<KeepRule> rules)
    {
        Linker = linker;
        KeepRules = rules;
    }

    /// <summary>What happens to each duplicate.</summary>
    public ILinker Linker { get; }

    /// <summary>The rules deciding which file stays, in order.</summary>
    public IReadOnlyList<KeepRule> KeepRules { get; }

    /// <summary>Plans the actions for <paramref name="groups"/>; nothing on disk is touched.</summary>
    /// <param name="groups">Groups from a scan (or from <see cref="ReportedDuplicates.FromPaths"/>).</param>
    /// <returns>The plan.</returns>
    public DuplicateActionPlan Plan(IEnumerable<DuplicateGroup> groups)
    {
        ArgumentNullException.ThrowIfNull(groups);
        var actions = new List<DuplicateAction>();
        foreach (var group in groups)
        {
            PlanGroup(group, actions);
        }

        return new DuplicateActionPlan(Linker, actions, TemporaryFiles.FindLeftovers(actions.Select(a => a.Path.Parent?.ToString()).OfType<string>()));
    }

    /// <summary>Plans the actions for groups as a scan streams them; nothing on disk is touched.</summary>
    /// <param name="groups">Groups from <see cref="DuplicateFinder.FindAsync"/>.</param>
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

    private void PlanGroup(DuplicateGroup group, List<DuplicateAction> actions)
    {
        if (group.Files.Count < 2)
        {
            return;
        }

        var kept = KeepRule.SelectKept(group.Files, KeepRules);
        foreach (var duplicate in group.Files)
        {
            if (ReferenceEquals(duplicate, kept) || duplicate.Identity == kept.Identity)
            {
                continue; // the kept file and names already linked to it: nothing to do, nothing to reclaim
            }

            var refusal = Linker.RefuseAtPlanTime(kept, duplicate);
            if (Linker.Kind == DuplicateActionKind.Dedupe)
            {
                // Dedupe acts on the file's data, once, whatever its names.
                actions.Add(new DuplicateAction(Linker.Kind, group, kept, duplicate, duplicate.Path, refusal is null ? duplicate.Length : 0, refusal));
                continue;
            }

            var names = new[] { duplicate.Path }.Concat(duplicate.OtherLinks).ToArray();

            // The data is freed only when no name is left: all names found here, and no link outside the scan.
            var freed = refusal is null && duplicate.LinkCount <= names.Length ? duplicate.Length : 0;
            for (var i = 0; i < names.Length; i++)
            {
                actions.Add(new DuplicateAction(Linker.Kind, group, kept, duplicate, names[i], i == names.Length - 1 ? freed : 0, refusal));
            }
        }
    }
}
