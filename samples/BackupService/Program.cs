// The backup service: finds duplicate files on the backup roots every few hours and logs what it found.
//
//   dotnet run --project samples/BackupService                                  # repeats every BackupService:Interval
//   dotnet run --project samples/BackupService -- --once --Dedup:Roots:0=/srv/backup
//
// Settings come from appsettings.json (section "Dedup" for the scan, "BackupService" for this worker; a key the
// library does not know in "Dedup" stops the host at start), environment variables (Dedup__Roots__0=...) and the command
// line. Dedup:Cache:Path names a SQLite hash cache (none by default), so that each run reads only what changed. With --once (or BackupService:Once=true) it runs one scan and exits: 0 completed, 1 completed with file errors,
// 2 a root is missing (the disk is not mounted). Without it a missing root is logged and retried at the next interval.
// Bad settings (an unknown comparer, a negative MinSize, no roots, a key the library does not know) stop the host at
// start-up, naming the setting (exit code 3).
// This service logs each file error, the groups and the run's totals itself, so appsettings.json sets the library's
// own category ("Dedup.Core": scan started/completed 100/101, file errors 104) to Error; set it to Information to
// see those events too.
using BackupService;
using Dedup.Core;
using Dedup.Core.Caching.Sqlite;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

// "--once" has no value, which the command-line configuration provider cannot read; map it to BackupService:Once.
var once = args.Contains("--once", StringComparer.Ordinal);
var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings
{
    Args = args.Where(a => a != "--once").ToArray(),
    // A service is often started with "/" as its working folder; its appsettings.json is next to the program.
    ContentRootPath = AppContext.BaseDirectory,
});
if (once)
{
    builder.Configuration.AddInMemoryCollection([new("BackupService:Once", "true")]);
}

var section = builder.Configuration.GetSection("Dedup");
builder.Services.AddDedup(section)
    .AddDedupCache(path => new SqliteHashCache(path)); // reads Dedup:Cache:Path, if set: a rescan reads only what changed
builder.Services.AddOptions<BackupServiceOptions>()
    .Bind(builder.Configuration.GetSection("BackupService"))
    .Validate(o => o.Action is "none" or "hardlink", "BackupService:Action must be \"none\" or \"hardlink\".")
    .Validate(o => o.Interval > TimeSpan.Zero, "BackupService:Interval must be positive.")
    .ValidateOnStart();
builder.Services.AddHostedService<DedupWorker>();

using var host = builder.Build();
try
{
    await host.RunAsync();
}
catch (OptionsValidationException e)
{
    // The host has logged it with its stack; this is the one line an operator reads.
    Console.Error.WriteLine($"BackupService: invalid settings: {string.Join(" ", e.Failures)}");
    return 3;
}
catch (InvalidOperationException e) when (e.Source == "Microsoft.Extensions.Configuration.Binder")
{
    // A key no option has (a typo in "Dedup" is refused, not ignored), or a value of the wrong type: bad settings too.
    Console.Error.WriteLine($"BackupService: invalid settings: {e.Message}");
    return 3;
}

// The worker sets the exit code of a --once run.
return Environment.ExitCode;
