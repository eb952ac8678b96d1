using Dedup.Cli;

return await CliApplication.RunAsync(args).ConfigureAwait(false);
