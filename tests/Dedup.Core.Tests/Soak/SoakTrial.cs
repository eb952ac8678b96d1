using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Linking;

namespace Dedup.Core.Tests.Soak;

/// <summary>What a trial acts with and on.</summary>
internal enum SoakAction
{
    HardLink,
    SymbolicLink,
    Clone,
    Dedupe,
    Delete,
    Trash,
    FolderDelete,
    FolderTrash,
    FolderHardLink,
}

/// <summary>
/// One seeded trial: make a world, scan it, change it (between scan and plan, between plan and apply, at the
/// protocol's fault hooks and from a concurrent thread while the actions run), plan from the scan or from a report
/// of it, apply, and check the invariant: every content the user's names held is still reachable under one of them,
/// a name the user changed after the scan is untouched, and nothing outside the roots changed.
/// </summary>
internal static class SoakTrial
{
    private static readonly SoakAction[] Actions = Enum.GetValues<SoakAction>();

    /// <summary>The action a seed runs: seeds cycle through every action, so any run of nine seeds covers them all.</summary>
    public static SoakAction ActionOf(int seed) => Actions[seed % Actions.Length];

    /// <summary>Runs the trial of <paramref name="seed"/>; returns a line describing it, throws with the story when the invariant breaks.</summary>
    public static async Task<string> RunAsync(int seed, string? btrfs)
    {
        var action = ActionOf(seed);
        var onBtrfs = action is SoakAction.Clone or SoakAction.Dedupe;
        var folders = action is SoakAction.FolderDelete or SoakAction.FolderTrash or SoakAction.FolderHardLink;
        using var world = new SoakWorld(seed, onBtrfs ? btrfs : null, folders);
        var random = world.Random;
        var mutator = new SoakMutator(world, new Random(seed * 31 + 7));
        var fromReport = !folders && random.Next(3) == 0;
        var story = new List<string> { $"seed {seed}: {action}{(fromReport ? " from a report" : "")} in {world.World}" };
        try
        {
            var scan = new DuplicateFinderBuilder().AddRoots(world.Roots).IncludeHidden(true).UseFolderMode(folders).Build().FindAsync();
            var groups = new List<DuplicateGroup>();
            await foreach (var group in scan)
            {
                groups.Add(group);
            }

            story.Add("made: " + string.Join(", ", world.Model.Select(e => $"{Path.GetRelativePath(world.World, e.Key)}={e.Value.Inode}")));
            if (folders)
            {
                // Folder actions re-verify every file of both folders: aim some changes inside them.
                mutator.Focus = scan.FolderGroups.SelectMany(g => g.Folders).Select(f => f.ToString() + "/").ToArray();
            }

            mutator.Run(random.Next(0, 3), SoakMutator.BeforeAction);
            var planner = Planner(action, world, random);
            mutator.Run(random.Next(0, 3), SoakMutator.BeforeAction);
            story.AddRange(mutator.Done);
            mutator.Done.Clear();

            using var stop = new CancellationTokenSource();
            var concurrent = random.Next(3) == 0;
            mutator.ActionsRunning = true;
            var thread = concurrent ? Task.Run(() => Concurrently(mutator, stop.Token)) : Task.CompletedTask;
            string outcome;
            var failures = new List<string>();
            try
            {
                if (folders)
                {
                    var plan = planner.PlanFolders(scan.FolderGroups);
                    var report = await plan.ApplyAsync().AsTask().WaitAsync(TimeSpan.FromMinutes(2));
                    outcome = $"{plan.Actions.Count} folder actions, {report.Outcomes.Count(o => o.Status == DuplicateActionStatus.Done)} done";
                }
                else
                {
                    var plan = planner.Plan(fromReport ? AsReported(groups) : groups);
                    plan.Faults = Hooks(mutator, random);
                    var report = await plan.ApplyAsync().AsTask().WaitAsync(TimeSpan.FromMinutes(2));
                    failures.AddRange(report.Outcomes.Select(o => Path.GetRelativePath(world.World, o.ToString().Replace(world.World + "/", "", StringComparison.Ordinal))));
                    outcome = $"{plan.Actions.Count} actions, {report.Done} done, {report.Skipped} skipped, {report.Failed} failed";
                }
            }
            finally
            {
                await stop.CancelAsync();
                await thread;
            }

            story.AddRange(mutator.Done);
            story.Add(outcome);
            story.AddRange(failures);
            Check(world, action);
            return string.Join("; ", story);
        }
        catch (Exception ex)
        {
            throw new InvalidOperationException(string.Join("\n  ", story.Append(mutator.Done.Count > 0 ? "changes while acting: " + string.Join(", ", mutator.Done) : "")), ex);
        }
    }

    private static DuplicateActionPlanner Planner(SoakAction action, SoakWorld world, Random random)
    {
        Linker linker = action switch
        {
            SoakAction.HardLink or SoakAction.FolderHardLink => Linkers.HardLink,
            SoakAction.SymbolicLink => Linkers.SymbolicLink(relative: random.Next(2) == 0),
            SoakAction.Clone => Linkers.Clone,
            SoakAction.Dedupe => Linkers.Dedupe,
            SoakAction.Delete or SoakAction.FolderDelete => Linkers.Delete,
            _ => new TrashLinker(world.TrashHome),
        };
        var builder = new DuplicateActionPlanBuilder().UseLinker(linker);
        switch (random.Next(4))
        {
            case 0:
                builder.Keep(KeepRule.PreferUnder(world.Roots[1])).Keep(KeepRule.PathOrder);
                break;
            case 1:
                builder.Keep(KeepRule.Newest).Keep(KeepRule.PathOrder);
                break;
            case 2:
                builder.Keep(KeepRule.ShortestPath).Keep(KeepRule.PathOrder);
                break;
        }

        return builder.Build();
    }

    /// <summary>The groups as a saved report carries them: paths, identities, sizes and times, rebuilt by the library.</summary>
    private static List<DuplicateGroup> AsReported(List<DuplicateGroup> groups)
    {
        var result = new List<DuplicateGroup>();
        foreach (var group in groups)
        {
            var files = group.Files.SelectMany(f => f.OtherLinks.Prepend(f.Path).Select(p => new ReportedFile(p, f.Identity, f.Length, f.LastWriteTimeUtc, f.LastChangeTimeUtc)));
            // Problems (a name changed since the "report") leave those names out, as the CLI does.
            if (ReportedDuplicates.FromReport(group.Roots, group.Size, files, out _) is { } rebuilt)
            {
                result.Add(rebuilt);
            }
        }

        return result;
    }

    /// <summary>
    /// Changes at the protocol's own steps: before the rename or delete the duplicate is rewritten in place with its
    /// stamp put back (the last check must see it), and after the last check its folder is swapped for a link to a
    /// decoy outside (the action must stay in the folder it opened).
    /// </summary>
    private static LinkerFaults Hooks(SoakMutator mutator, Random random)
    {
        var hooks = new Random(random.Next());
        void Maybe(string kind, string path)
        {
            lock (hooks)
            {
                if (hooks.Next(4) == 0)
                {
                    mutator.Apply(kind, path);
                }
            }
        }

        return new LinkerFaults
        {
            BeforeRename = (_, duplicate) => Maybe("edit-same-stamp", duplicate),
            BeforeDelete = duplicate => Maybe("edit-same-stamp", duplicate),
            BeforeTrashMove = (_, duplicate) => Maybe("edit-same-stamp", duplicate),
            AfterLastCheck = duplicate => Maybe("swap-folder", duplicate),
        };
    }

    private static void Concurrently(SoakMutator mutator, CancellationToken stop)
    {
        var random = new Random(17);
        for (var i = 0; i < 20 && !stop.IsCancellationRequested; i++)
        {
            Thread.Sleep(random.Next(0, 3));
            mutator.Run(1, SoakMutator.WhileActing);
        }
    }

    /// <summary>The invariant; throws naming the first name that breaks it.</summary>
    private static void Check(SoakWorld world, SoakAction action)
    {
        var removing = action is SoakAction.Delete or SoakAction.Trash or SoakAction.FolderDelete or SoakAction.FolderTrash;
        var now = world.Model.Keys.ToDictionary(p => p, p => SoakWorld.Read(p), StringComparer.Ordinal);
        foreach (var (path, expected) in world.Model)
        {
            var actual = now[path];
            if (expected.Pinned)
            {
                Assert.True(actual is not null && actual.Inode == expected.Inode && Same(expected, actual), $"{path} was changed by the user after the scan, yet an action touched it: expected {Describe(expected)}, found {Describe(actual)}");
                continue;
            }

            if (actual is null)
            {
                Assert.True(removing, $"{path} is gone after a {action}, which never removes a name");
                if (expected.Kind == EntryKind.File)
                {
                    Assert.True(now.Any(n => n.Key != path && HoldsBytes(n.Key, n.Value, expected.Bytes!, world)), $"{path} is gone and no other name holds its bytes");
                }
                else
                {
                    Assert.True(action is SoakAction.FolderDelete or SoakAction.FolderTrash && !Directory.Exists(Path.GetDirectoryName(path)), $"{path} ({expected.Kind}) is gone");
                }

                continue;
            }

            // A link our symbolic-link action made may dangle once the user renames the kept file: the bytes must then
            // still be under another name.
            var holds = expected.Kind != EntryKind.File ? Same(expected, actual)
                : HoldsBytes(path, actual, expected.Bytes!, world)
                  || (action == SoakAction.SymbolicLink && actual.Kind == EntryKind.Symlink && now.Any(n => n.Key != path && n.Value?.Kind == EntryKind.File && n.Value.Bytes!.AsSpan().SequenceEqual(expected.Bytes)));
            Assert.True(holds, $"{path} no longer holds what it held: expected {Describe(expected)}, found {Describe(actual)}");
        }

        var outside = world.SnapshotOutside();
        var changed = outside.Keys.Union(world.OutsideBefore.Keys)
            .Where(k => !outside.TryGetValue(k, out var a) || !world.OutsideBefore.TryGetValue(k, out var b) || a != b)
            .Select(k => $"{Path.GetRelativePath(world.World, k)}: {world.OutsideBefore.GetValueOrDefault(k) ?? "(none)"} -> {outside.GetValueOrDefault(k) ?? "(none)"}")
            .ToList();
        Assert.True(changed.Count == 0, "outside the roots: " + string.Join("; ", changed));
        Assert.Equal(["home", "outside", "r1", "r2"], Directory.EnumerateFileSystemEntries(world.World).Select(Path.GetFileName).Order(StringComparer.Ordinal));
        Assert.Empty(Directory.EnumerateFileSystemEntries(world.World, ".dedup-tmp-*", new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0 }));
    }

    private static string Describe(Entry? e) => e is null ? "nothing" : $"{e.Kind} ino={e.Inode} pinned={e.Pinned} {(e.Bytes is null ? e.Target : Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(e.Bytes))[..12] + "/" + e.Bytes.Length)}";

    private static bool Same(Entry expected, Entry actual) =>
        expected.Kind == actual.Kind && expected.Target == actual.Target
        && (expected.Bytes is null ? actual.Bytes is null : actual.Bytes is not null && expected.Bytes.AsSpan().SequenceEqual(actual.Bytes));

    /// <summary>A regular file with these bytes, or a link (made by a symbolic-link action) to one inside the roots.</summary>
    private static bool HoldsBytes(string path, Entry? actual, byte[] bytes, SoakWorld world)
    {
        switch (actual?.Kind)
        {
            case EntryKind.File:
                return actual.Bytes!.AsSpan().SequenceEqual(bytes);
            case EntryKind.Symlink:
                var target = Path.GetFullPath(actual.Target!, Path.GetDirectoryName(path)!);
                return world.Roots.Any(r => target.StartsWith(r + "/", StringComparison.Ordinal))
                    && SoakWorld.Read(target) is { Kind: EntryKind.File } file && file.Bytes!.AsSpan().SequenceEqual(bytes);
            default:
                return false;
        }
    }
}
