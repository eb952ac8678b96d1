// A backup tool's duplicate report: the files come from the snapshot's manifest, not from a folder walk.
//
//   find SNAPSHOT -type f -printf '%D %i %n %P\n' > SNAPSHOT.manifest   # how the backup recorded its snapshot
//   dotnet run --project samples/BackupTool -- SNAPSHOT SNAPSHOT.manifest
//
// Prints each group of identical files (size, then one path per line) and the scan's errors; exit code 0 when
// the scan had no errors, 1 when it had some, 2 on bad usage.
using BackupTool;
using Dedup.Core;
using Dedup.Core.Paths;

if (args.Length != 2)
{
    Console.Error.WriteLine("usage: BackupTool SNAPSHOT-FOLDER MANIFEST");
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
return scan.Summary.Errors.Count == 0 ? 0 : 1;
