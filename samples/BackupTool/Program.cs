// A backup tool's duplicate report: the files come from the snapshot's manifest, not from a folder walk.
//
//   find SNAPSHOT -type f -printf '%D %i %n %P\n' > SNAPSHOT.manifest   # how the backup recorded its snapshot
//   dotnet run --project samples/BackupTool -- SNAPSHOT SNAPSHOT.manifest [--stubs]
//
// Prints each group of identical files (size, then one path per line) and the scan's errors. With --stubs it then
// replaces every duplicate but the first in path order with a stub naming the kept copy (its own linker, StubLinker),
// each re-verified by the library first. Exit code 0 when everything went through, 1 when the scan had errors or an
// action was skipped or failed, 2 on bad usage.
using BackupTool;
using Dedup.Core;
using Dedup.Core.Linking;
using Dedup.Core.Paths;

var stubs = args.Length == 3 && args[2] == "--stubs";
if (args.Length != 2 && !stubs)
{
    Console.Error.WriteLine("usage: BackupTool SNAPSHOT-FOLDER MANIFEST [--stubs]");
    return 2;
}

var (snapshot, manifest) = (args[0], args[1]);
var finder = new DuplicateFinderBuilder()
    .AddRoot(snapshot)
    .UseFileEnumerator(new ManifestEnumerator(snapshot, manifest))
    .Build();

var scan = finder.FindAsync();
var groups = new List<DuplicateGroup>();
await foreach (var group in scan)
{
    groups.Add(group);
}

foreach (var group in groups.OrderBy(g => g.Files[0].Path.ToString(), StringComparer.Ordinal))
{
    Console.WriteLine($"{group.Size} bytes, {group.Files.Count} copies:");
    foreach (var file in group.Files)
    {
        Console.WriteLine("  " + PathText.Escape(file.Path.ToString()));
    }
}

foreach (var error in scan.Summary.Errors)
{
    Console.Error.WriteLine(error);
}

Console.WriteLine($"{groups.Count} groups, {scan.Summary.WastedBytes} bytes in duplicate copies.");
if (!stubs)
{
    return scan.Summary.Errors.Count == 0 ? 0 : 1;
}

var plan = new DuplicateActionPlanBuilder().UseLinker(new StubLinker()).Keep(KeepRule.PathOrder).Build().Plan(groups);
var report = await plan.ApplyAsync();
foreach (var outcome in report.Outcomes.Where(o => o.Status != DuplicateActionStatus.Done))
{
    Console.Error.WriteLine(outcome);
}

Console.WriteLine($"{report.Done} replaced with stubs, {report.Skipped} skipped, {report.Failed} failed; {report.ReclaimedBytes} bytes reclaimed.");
return scan.Summary.Errors.Count == 0 && report.Done == report.Outcomes.Count ? 0 : 1;
