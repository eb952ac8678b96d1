using Dedup.Cli;

OpenFileLimit.Raise();
return await CliApplication.RunAsync(KernelArguments.Recover(args)).ConfigureAwait(false);
