using System.CommandLine;
using Dedup.Cli.Acting;
using Dedup.Core.Linking;

namespace Dedup.Cli;

/// <summary><c>dedup delete [--trash] PATH...</c>: removes duplicates (permanently, or to the trash) once re-verified.</summary>
internal static class DeleteCommand
{
    public static Command Create()
    {
        var trash = new Option<bool>("--trash") { Description = "Move duplicates to the trash (freedesktop.org specification) instead of deleting them." };
        var acting = new ActingCommand();
        var command = new Command("delete", "Delete duplicates, keeping one file per group; each is compared byte for byte with the kept file first.") { trash };
        acting.AddTo(command);
        command.SetAction((result, cancellationToken) => acting.RunAsync(result, () => result.GetValue(trash) ? Linkers.Trash : Linkers.Delete, cancellationToken));
        return command;
    }
}
