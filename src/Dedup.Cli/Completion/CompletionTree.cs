using System.CommandLine;
using System.CommandLine.Completions;

namespace Dedup.Cli.Completion;

/// <summary>What a shell completes, read from the command tree itself, so a script never falls behind the options.</summary>
internal sealed record CompletionTree(IReadOnlyList<CompletionCommandInfo> Commands, IReadOnlyList<CompletionOption> RootOptions)
{
    public static CompletionTree From(RootCommand root)
    {
        var recursive = root.Options.Where(o => o.Recursive).Select(CompletionOption.From).Where(o => o.Names.Count > 0).ToArray();
        var commands = root.Subcommands.Where(c => !c.Hidden).Select(command =>
        {
            var values = command.Arguments.SelectMany(a => a.GetCompletions(CompletionContext.Empty)).Select(c => c.Label).ToArray();
            var options = command.Options.Where(o => !o.Hidden).Select(CompletionOption.From).Where(o => o.Names.Count > 0).Concat(recursive).ToArray();
            return new CompletionCommandInfo(command.Name, CompletionOption.Summary(command.Description), options, values);
        }).ToArray();
        return new CompletionTree(commands, root.Options.Where(o => !o.Hidden).Select(CompletionOption.From).Where(o => o.Names.Count > 0).ToArray());
    }
}

/// <summary>A subcommand: its options, and the words its arguments take (none: folders, as for <c>find PATH...</c>).</summary>
internal sealed record CompletionCommandInfo(string Name, string Description, IReadOnlyList<CompletionOption> Options, IReadOnlyList<string> ArgumentValues);

/// <summary>
/// An option as a shell sees it: its names (<c>--long</c> and one-letter <c>-x</c> only), whether it takes a value,
/// the words that value may be (<c>--format</c>: text json csv), whether the value is a file, and whether it repeats.
/// A value with no words and no file is a folder (<c>--protect DIR</c>), or free text the folder list does not hurt.
/// </summary>
internal sealed record CompletionOption(IReadOnlyList<string> Names, string Description, bool TakesValue, IReadOnlyList<string> Values, bool IsFile, bool Repeatable)
{
    /// <summary>Whether the value may be a path: not a number (<c>--min-size</c>, <c>--threads</c>), for which nothing is offered.</summary>
    public bool IsPath { get; init; } = true;

    public static CompletionOption From(Option option)
    {
        var names = option.Aliases.Prepend(option.Name)
            .Where(n => n.StartsWith("--", StringComparison.Ordinal) || (n.Length == 2 && n[0] == '-' && char.IsLetter(n[1])))
            .Distinct(StringComparer.Ordinal).ToArray();
        var takesValue = option.ValueType != typeof(bool) && option.Arity.MaximumNumberOfValues > 0; // a switch takes no value
        var values = takesValue ? option.GetCompletions(CompletionContext.Empty).Select(c => c.Label).ToArray() : [];
        var type = option.ValueType.IsArray ? option.ValueType.GetElementType()! : option.ValueType;
        return new CompletionOption(names, Summary(option.Description), takesValue, values, type == typeof(FileInfo), option.Arity.MaximumNumberOfValues > 1)
        {
            IsPath = type == typeof(string) || typeof(FileSystemInfo).IsAssignableFrom(type),
        };
    }

    /// <summary>The first sentence of a description (shells show one short line), at most 80 characters.</summary>
    public static string Summary(string? description)
    {
        var text = (description ?? string.Empty).ReplaceLineEndings(" ").Trim();
        var end = text.IndexOf(". ", StringComparison.Ordinal);
        text = (end < 0 ? text : text[..end]).TrimEnd('.');
        return text.Length <= 80 ? text : text[..77].TrimEnd() + "...";
    }
}
