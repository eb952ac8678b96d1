using System.CommandLine;
using Dedup.Cli.Acting;
using Dedup.Core.Linking;

namespace Dedup.Cli;

/// <summary><c>dedup link --mode hard|symbolic|clone|dedupe PATH...</c>: replaces duplicates with links or clones of the kept file.</summary>
internal static class LinkCommand
{
    public static Command Create()
    {
        var mode = new Option<string>("--mode") { Description = "hard, symbolic, clone (copy-on-write) or dedupe (kernel-verified extent sharing).", Required = true };
        mode.AcceptOnlyFromAmong("hard", "symbolic", "clone", "dedupe");
        var absolute = new Option<bool>("--absolute") { Description = "With --mode symbolic: absolute link targets (default: relative)." };
        var acting = new ActingCommand();
        var command = new Command("link", "Replace duplicates with hard links, symbolic links or clones of the file kept; each is re-verified first.") { mode, absolute };
        acting.AddTo(command);
        command.SetAction((result, cancellationToken) => acting.RunAsync(
            result,
            () => result.GetValue(mode) switch
            {
                "symbolic" => Linkers.SymbolicLink(relative: !result.GetValue(absolute)),
                "clone" => Linkers.Clone,
                "dedupe" => Linkers.Dedupe,
                _ => Linkers.HardLink,
            },
            cancellationToken));
        return command;
    }
}
