using System.CommandLine;
using Dedup.Cli.Completion;

namespace Dedup.Cli;

/// <summary>
/// <c>dedup completion bash|zsh|fish</c>: prints a shell completion script made from the command tree itself, so it
/// never falls behind the options. Install with, for example,
/// <c>dedup completion bash &gt; ~/.local/share/bash-completion/completions/dedup</c> (the .deb installs all three).
/// </summary>
internal static class CompletionCommand
{
    public static Command Create(RootCommand root)
    {
        var shell = new Argument<string>("shell") { Description = "bash, zsh or fish." };
        shell.AcceptOnlyFromAmong("bash", "zsh", "fish");
        var command = new Command("completion", "Print a shell completion script (bash, zsh or fish) for dedup.") { shell };
        command.SetAction(result =>
        {
            var tree = CompletionTree.From(root);
            result.InvocationConfiguration.Output.Write(result.GetValue(shell) switch
            {
                "zsh" => ZshCompletion.Script(tree),
                "fish" => FishCompletion.Script(tree),
                _ => BashCompletion.Script(tree),
            });
            return ExitCodes.Success;
        });
        return command;
    }
}
