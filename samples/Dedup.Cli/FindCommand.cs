using System.CommandLine;
using Dedup.Cli.Output;
using Dedup.Core;
using Dedup.Core.Comparison;
using Dedup.Core.Paths;

namespace Dedup.Cli;

/// <summary><c>dedup find PATH...</c>: scans and writes the groups in the chosen format.</summary>
internal static class FindCommand
{
    public static Command Create()
    {
        var paths = new Argument<string[]>("path") { Arity = ArgumentArity.OneOrMore, Description = "Folders to scan." };
        var format = new Option<string>("--format") { Description = "Output format: text, json or csv.", DefaultValueFactory = _ => "text" };
        format.AcceptOnlyFromAmong("text", "json", "csv");
        var output = new Option<FileInfo?>("--output", "-o") { Description = "Write the report to this file instead of standard output." };
        var minSize = new Option<long?>("--min-size") { Description = "Ignore files smaller than this (bytes, or with K/M/G/T).", CustomParser = CliApplication.ParseSize };
        var maxSize = new Option<long?>("--max-size") { Description = "Ignore files larger than this (bytes, or with K/M/G/T).", CustomParser = CliApplication.ParseSize };
        var include = new Option<string[]>("--include") { Description = "Only scan files matching this glob (repeatable).", AllowMultipleArgumentsPerToken = false };
        var exclude = new Option<string[]>("--exclude") { Description = "Skip files and folders matching this glob (repeatable).", AllowMultipleArgumentsPerToken = false };
        var hidden = new Option<bool>("--hidden") { Description = "Scan names starting with a dot (skipped by default)." };
        var followSymlinks = new Option<bool>("--follow-symlinks") { Description = "Follow symbolic links (loops are detected)." };
        var oneFileSystem = new Option<bool>("--one-file-system") { Description = "Do not cross into other file systems." };
        var strategy = new Option<string>("--strategy") { Description = "Comparison: hybrid, hash, vectorized or bytewise.", DefaultValueFactory = _ => "hybrid" };
        strategy.AcceptOnlyFromAmong("hybrid", "hash", "vectorized", "bytewise");
        var hash = new Option<string>("--hash") { Description = "Hash algorithm: xxh128, xxh3 or sha256.", DefaultValueFactory = _ => "xxh128" };
        hash.AcceptOnlyFromAmong("xxh128", "xxh3", "sha256");
        var trustHashes = new Option<bool>("--trust-hashes") { Description = "Accept equal 128-bit hashes without comparing bytes." };
        var empty = new Option<bool>("--empty") { Description = "Report empty files as duplicates." };
        var media = new Option<bool>("--media") { Description = "Compare MP3, FLAC, JPEG, PNG, WAV, WebP and MP4 files by media payload, ignoring tags." };
        var threads = new Option<int?>("--threads") { Description = "Maximum parallelism (default: processor count)." };
        threads.Validators.Add(r =>
        {
            if (r.GetValueOrDefault<int?>() is < 1)
            {
                r.AddError("--threads must be at least 1.");
            }
        });

        var command = new Command("find", "Find duplicate files under the given folders.")
        {
            paths, format, output, minSize, maxSize, include, exclude, hidden, followSymlinks, oneFileSystem,
            strategy, hash, trustHashes, empty, media, threads,
        };

        command.SetAction(async (result, cancellationToken) =>
        {
            var builder = new DuplicateFinderBuilder()
                .AddRoots(result.GetValue(paths)!)
                .IncludeHidden(result.GetValue(hidden))
                .FollowSymbolicLinks(result.GetValue(followSymlinks))
                .StayOnOneFileSystem(result.GetValue(oneFileSystem))
                .IncludeEmptyFiles(result.GetValue(empty))
                .UseMediaMode(result.GetValue(media))
                .UseComparer(ComparerStrategies.FromName(result.GetValue(strategy)!))
                .UseHashAlgorithm(result.GetValue(hash) switch
                {
                    "xxh3" => DuplicateHashAlgorithm.XxHash3,
                    "sha256" => DuplicateHashAlgorithm.Sha256,
                    _ => DuplicateHashAlgorithm.XxHash128,
                })
                .TrustHashes(result.GetValue(trustHashes));
            if (result.GetValue(minSize) is { } min)
            {
                builder.WithMinSize(min);
            }

            if (result.GetValue(maxSize) is { } max)
            {
                builder.WithMaxSize(max);
            }

            foreach (var glob in result.GetValue(include) ?? [])
            {
                builder.Include(glob);
            }

            foreach (var glob in result.GetValue(exclude) ?? [])
            {
                builder.Exclude(glob);
            }

            if (result.GetValue(threads) is { } degree)
            {
                builder.WithMaxDegreeOfParallelism(degree);
            }

            return await RunAsync(builder, result.GetValue(format)!, result.GetValue(output), cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    private static async Task<int> RunAsync(DuplicateFinderBuilder builder, string format, FileInfo? output, CancellationToken cancellationToken)
    {
        using var progress = ProgressDisplay.CreateIfTerminal();
        if (progress is not null)
        {
            builder.ReportProgress(progress);
        }

        DuplicateFinder finder;
        try
        {
            finder = builder.Build();
            finder.CheckRoots(); // before the output is opened
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException or IOException)
        {
            await Console.Error.WriteLineAsync($"dedup: {PathText.EscapeMessage(ex.Message)}").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        Stream stream;
        try
        {
            stream = output is null ? Console.OpenStandardOutput() : new FileStream(output.FullName, FileMode.Create, FileAccess.Write, FileShare.Read, 1, FileOptions.None);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            await Console.Error.WriteLineAsync($"dedup: cannot write '{PathText.Escape(output?.FullName ?? string.Empty)}': {PathText.EscapeMessage(ex.Message)}").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        await using (stream.ConfigureAwait(false))
        {
            // One buffered writer for the whole report: no per-line flushing or locking.
            await using var buffered = new BufferedStream(stream, 256 * 1024);
            using var writer = ReportWriter.Create(format, buffered);
            var scan = finder.FindAsync(cancellationToken);
            try
            {
                await foreach (var group in scan.ConfigureAwait(false))
                {
                    writer.WriteGroup(group);
                }
            }
            catch (OperationCanceledException)
            {
                await Console.Error.WriteLineAsync("dedup: cancelled").ConfigureAwait(false);
                return ExitCodes.Cancelled;
            }

            progress?.Complete(scan.Summary);
            writer.WriteRoots(scan.Roots);
            writer.WriteSummary(scan.Summary);
            writer.Flush();
            await buffered.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            foreach (var error in scan.Summary.Errors.Take(20))
            {
                await Console.Error.WriteLineAsync($"dedup: {PathText.Escape(error.Path)}: {PathText.EscapeMessage(error.Message)}").ConfigureAwait(false);
            }

            if (scan.Summary.Errors.Count > 20)
            {
                await Console.Error.WriteLineAsync($"dedup: … and {scan.Summary.Errors.Count - 20} more errors").ConfigureAwait(false);
            }

            return scan.Summary.Errors.Count == 0 ? ExitCodes.Success : ExitCodes.CompletedWithErrors;
        }
    }
}
