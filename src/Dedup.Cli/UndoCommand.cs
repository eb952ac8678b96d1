using System.CommandLine;
using Dedup.Cli.Undo;

namespace Dedup.Cli;

/// <summary><c>dedup undo LOG</c>: takes back what a <c>link</c>/<c>delete</c> run's <c>--log</c> journal records.</summary>
internal static class UndoCommand
{
    public static Command Create()
    {
        var run = new UndoRun();
        var command = new Command("undo", "Take back what a 'dedup link' or 'dedup delete --trash' run did, from its --log journal: newest first, each name re-checked first; a permanent delete is irreversible.");
        run.AddTo(command);
        command.SetAction(run.RunAsync);
        return command;
    }
}
