using Dedup.Cli;

Gen0Governor.StartIfNeeded();
return await CliApplication.RunAsync(args).ConfigureAwait(false);
