// NetFxApp.exe FOLDER [--link]: prints each duplicate group (one line per group, every name of its files sorted,
// tab-separated: a hard-linked file's names all appear) and, with --link, replaces the duplicates with hard links to the first path of each group. Exit code 0 on success,
// 1 when an action failed or the scan reported errors, 2 on bad usage.
using Dedup.Core;
using Dedup.Core.Linking;

if (args.Length is < 1 or > 2 || (args.Length == 2 && args[1] != "--link"))
{
    Console.Error.WriteLine("usage: NetFxApp.exe FOLDER [--link]");
    return 2;
}

var root = Path.GetFullPath(args[0]);
var finder = new DuplicateFinderBuilder().AddRoot(root).Build();
var scan = finder.FindAsync();
var groups = new List<DuplicateGroup>();
await foreach (var group in scan)
{
    groups.Add(group);
}

foreach (var line in groups.Select(g => string.Join("\t", g.Files.SelectMany(f => f.OtherLinks.Prepend(f.Path)).Select(p => p.ToString()).OrderBy(p => p, StringComparer.Ordinal))).OrderBy(l => l, StringComparer.Ordinal))
{
    Console.WriteLine(line);
}

foreach (var error in scan.Summary.Errors)
{
    Console.Error.WriteLine($"error: {error.Path}: {error.Message}");
}

var failed = scan.Summary.Errors.Count > 0;
if (args.Length == 2)
{
    var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Keep(KeepRule.PathOrder).Build().Plan(groups);
    var report = await plan.ApplyAsync();
    foreach (var outcome in report.Outcomes)
    {
        Console.WriteLine($"{outcome.Status.ToString().ToLowerInvariant()}: {outcome.Action.Duplicate.Path}{(outcome.Reason is null ? string.Empty : " (" + outcome.Reason + ")")}");
        failed |= outcome.Status != DuplicateActionStatus.Done;
    }
}

return failed ? 1 : 0;
