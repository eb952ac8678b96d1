using System.CommandLine;
using Dedup.Cli.Acting;
using Dedup.Cli.Catalog;
using Dedup.Core.Paths;
using Dedup.Core.PostgreSql;

namespace Dedup.Cli;

/// <summary>
/// <c>dedup catalog machines|groups|forget</c>: the fleet as the PostgreSQL catalog holds it, read without scanning
/// (docs/scale.md, "Fleet view").
/// </summary>
internal static class CatalogCommand
{
    public static Command Create()
    {
        var command = new Command("catalog", "Look at a fleet's PostgreSQL catalog without scanning: its machines and the duplicates across them; forget a machine.");
        command.Subcommands.Add(Machines());
        command.Subcommands.Add(Groups());
        command.Subcommands.Add(Forget());
        return command;
    }

    private static Option<string> ConnectionOption() =>
        new("--catalog") { Description = "The PostgreSQL catalog, as for 'dedup find --catalog' (an Npgsql connection string, e.g. \"Host=db;Database=dedup;Username=dedup;Password=...\").", Required = true };

    private static Option<string> FormatOption()
    {
        var format = new Option<string>("--format") { Description = "Output format: text, json or csv.", DefaultValueFactory = _ => "text" };
        format.AcceptOnlyFromAmong("text", "json", "csv");
        return format;
    }

    private static Command Machines()
    {
        var catalog = ConnectionOption();
        var format = FormatOption();
        var command = new Command("machines", "List the catalog's machines: last scan (UTC), files, and pending digests (files of a size another machine holds, not hashed yet: they may match once the machine scans again).") { catalog, format };
        command.SetAction((result, cancellationToken) => WithCatalogAsync(result.GetValue(catalog)!, cancellationToken, async store =>
        {
            var skipped = new List<string>();
            var machines = await store.GetFleetMachinesAsync(skipped.Add, cancellationToken).ConfigureAwait(false);
            using (var stdout = StandardOutput())
            {
                FleetWriters.WriteMachines(stdout, result.GetValue(format)!, machines);
            }

            return await SkippedAsync(skipped).ConfigureAwait(false);
        }));
        return command;
    }

    private static Command Groups()
    {
        var catalog = ConnectionOption();
        var format = FormatOption();
        var machine = new Option<string?>("--machine") { Description = "Only the groups holding a file of this machine." };
        var command = new Command("groups", "List the files duplicated across machines (same size and SHA-256, as of each machine's last scan), largest waste first, read from the catalog page by page.") { catalog, machine, format };
        command.SetAction(async (result, cancellationToken) =>
        {
            var name = result.GetValue(machine);
            if (name is not null && CatalogOption.MachineProblem(name) is { } problem)
            {
                await Console.Error.WriteLineAsync($"dedup: {problem}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            return await WithCatalogAsync(result.GetValue(catalog)!, cancellationToken, async store =>
            {
                if (name is not null && !(await store.GetMachinesAsync(cancellationToken).ConfigureAwait(false)).Any(known => known.Name == name))
                {
                    await Console.Error.WriteLineAsync($"dedup: the catalog has no machine '{PathText.Escape(name)}'").ConfigureAwait(false);
                    return ExitCodes.CompletedWithErrors;
                }

                var skipped = new List<string>();
                using (var stdout = StandardOutput())
                {
                    // Written as the pages arrive: a listing piped to head ends after its first page.
                    await FleetWriters.WriteGroupsAsync(stdout, result.GetValue(format)!, store.ReadFleetGroupsAsync(name, skipped.Add, cancellationToken)).ConfigureAwait(false);
                }

                return await SkippedAsync(skipped).ConfigureAwait(false);
            }).ConfigureAwait(false);
        });
        return command;
    }

    private static Command Forget()
    {
        var catalog = ConnectionOption();
        var name = new Argument<string>("machine") { Description = "The machine's name in the catalog." };
        var yes = new Option<bool>("--yes", "-y") { Description = "Do not ask for confirmation (required when standard input is not a terminal)." };
        var command = new Command("forget", "Remove a machine and all its rows from the catalog, in one transaction (the other machines' rows stay). Its files are not touched.") { name, catalog, yes };
        command.SetAction(async (result, cancellationToken) =>
        {
            var machine = result.GetValue(name)!;
            if (CatalogOption.MachineProblem(machine) is { } problem)
            {
                await Console.Error.WriteLineAsync($"dedup: {problem.Replace("--machine", "the machine's name", StringComparison.Ordinal)}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            return await WithCatalogAsync(result.GetValue(catalog)!, cancellationToken, async store =>
            {
                var shown = PathText.Escape(machine);
                if (!result.GetValue(yes) && Console.IsInputRedirected)
                {
                    await Console.Error.WriteLineAsync("dedup: refusing to forget a machine without confirmation: standard input is not a terminal; pass --yes").ConfigureAwait(false);
                    return ExitCodes.BadUsage;
                }

                if ((await store.GetMachinesAsync(cancellationToken).ConfigureAwait(false)).FirstOrDefault(known => known.Name == machine) is not { } forgotten)
                {
                    return await UnknownAsync(shown).ConfigureAwait(false);
                }

                if (!result.GetValue(yes))
                {
                    await Console.Error.WriteAsync($"Forget machine '{shown}' ({Counts.Of(forgotten.Files, "file", "files")}, last scanned {forgotten.ScannedAt.UtcDateTime:yyyy-MM-dd HH:mm:ss} UTC)? Its rows leave the catalog; its files are not touched. [y/N] ").ConfigureAwait(false);
                    var answer = Console.ReadLine()?.Trim();
                    if (!string.Equals(answer, "y", StringComparison.OrdinalIgnoreCase) && !string.Equals(answer, "yes", StringComparison.OrdinalIgnoreCase))
                    {
                        await Console.Error.WriteLineAsync("dedup: nothing done").ConfigureAwait(false);
                        return ExitCodes.Declined;
                    }
                }

                // One transaction; a scan of the machine under way finishes first (the delete waits for its row lock).
                if (!await store.DeleteMachineAsync(machine, cancellationToken).ConfigureAwait(false))
                {
                    return await UnknownAsync(shown).ConfigureAwait(false);
                }

                await Console.Out.WriteLineAsync($"forgot machine '{shown}': {Counts.Of(forgotten.Files, "file", "files")}").ConfigureAwait(false);
                return ExitCodes.Success;
            }).ConfigureAwait(false);
        });
        return command;

        static async Task<int> UnknownAsync(string shown)
        {
            await Console.Error.WriteLineAsync($"dedup: the catalog has no machine '{shown}'").ConfigureAwait(false);
            return ExitCodes.CompletedWithErrors;
        }
    }

    /// <summary>Opens the catalog (exit 2 with one line when it cannot be), runs <paramref name="body"/>, and turns a catalog failure on the way into one line and exit 1.</summary>
    private static async Task<int> WithCatalogAsync(string connectionString, CancellationToken cancellationToken, Func<PostgresCatalog, Task<int>> body)
    {
        PostgresCatalog? store;
        try
        {
            store = await CatalogOption.OpenAsync(connectionString, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return ExitCodes.Cancelled; // the signal's own code replaces it (CliApplication)
        }

        if (store is null)
        {
            return ExitCodes.BadUsage;
        }

        await using (store.ConfigureAwait(false))
        {
            try
            {
                return await body(store).ConfigureAwait(false);
            }
            catch (CatalogException error)
            {
                await Console.Error.WriteLineAsync($"dedup: catalog: {CatalogOption.OneLine(error)}").ConfigureAwait(false);
                return ExitCodes.CompletedWithErrors;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                await Console.Error.WriteLineAsync("dedup: interrupted; the catalog is as it was").ConfigureAwait(false);
                return ExitCodes.Cancelled;
            }
            catch (IOException error)
            {
                // Standard output closed (a pipe to head): the listing ends there, as find's report does.
                await Console.Error.WriteLineAsync($"dedup: cannot write to standard output: {PathText.EscapeMessage(error.Message)}").ConfigureAwait(false);
                return ExitCodes.CompletedWithErrors;
            }
        }
    }

    /// <summary>
    /// Standard output as a stream whose writes fail once the reader is gone (a pipe to head closed): .NET's console
    /// stream drops EPIPE silently, which would read the rest of the fleet's pages for nothing.
    /// </summary>
    private static Stream StandardOutput() =>
        OperatingSystem.IsLinux() ? new BufferedStream(new Output.DescriptorStream(1), 64 * 1024) : Console.OpenStandardOutput();

    /// <summary>Names each row the listing left out, one line each; exit 1 when there were any.</summary>
    private static async Task<int> SkippedAsync(List<string> skipped)
    {
        foreach (var message in skipped)
        {
            await Console.Error.WriteLineAsync($"dedup: catalog: {PathText.EscapeMessage(message)}").ConfigureAwait(false);
        }

        return skipped.Count > 0 ? ExitCodes.CompletedWithErrors : ExitCodes.Success;
    }
}
