using Dedup.Cli;

return await CliApplication.RunAsync(KernelArguments.Recover(args)).ConfigureAwait(false);
