using System.CommandLine;
using System.CommandLine.Parsing;

namespace Dedup.Cli.Selection;

/// <summary>
/// Catches what the parser would take as a folder or report only vaguely: an unknown option (<c>--min-sise</c> would
/// otherwise be "the root folder '--min-sise' does not exist") and a misspelled command, each named with the nearest
/// valid one. A folder whose name starts with a dash can still be given after <c>--</c>.
/// </summary>
internal static class UsageCheck
{
    /// <summary>One line describing the first such mistake, or <see langword="null"/>.</summary>
    public static string? Find(RootCommand root, ParseResult result)
    {
        var command = result.CommandResult.Command;
        if (command == root)
        {
            var first = result.Tokens.FirstOrDefault();
            if (first is { Type: TokenType.Argument } && !first.Value.StartsWith('-'))
            {
                var known = root.Subcommands.Select(c => c.Name).ToArray();
                return $"unknown command '{first.Value}'{Suggest(first.Value, known)}";
            }
        }

        var names = command.Options.Concat(command.Parents.OfType<Command>().SelectMany(p => p.Options.Where(o => o.Recursive)))
            .SelectMany(o => o.Aliases.Append(o.Name))
            .Distinct(StringComparer.Ordinal)
            .ToArray();
        // A negative number given as an option's value (--threads -1) is that option's mistake, which its parser names;
        // no option is named "-" and a digit. Any other dashed value (--include --bogus) is still taken for a misspelled option.
        var values = result.CommandResult.Children.OfType<OptionResult>()
            .SelectMany(o => o.Tokens)
            .Where(t => t.Value.Length > 1 && char.IsAsciiDigit(t.Value[1]))
            .ToHashSet(ReferenceEqualityComparer.Instance);
        foreach (var token in result.Tokens)
        {
            if (token.Type == TokenType.DoubleDash)
            {
                break; // what follows "--" is a folder, whatever its name
            }

            if (token.Type == TokenType.Argument && token.Value.Length > 1 && token.Value.StartsWith('-') && !values.Contains(token))
            {
                return $"unknown option '{token.Value}' for '{(command is RootCommand ? "dedup" : $"dedup {command.Name}")}'{Suggest(token.Value, names)}";
            }
        }

        return null;
    }

    private static string Suggest(string given, IReadOnlyCollection<string> known)
    {
        var best = known.MinBy(k => Distance(given, k));
        return best is not null && given.Length > 2 && Distance(given, best) <= Math.Max(2, given.Length / 3) ? $"; did you mean '{best}'?" : string.Empty;
    }

    /// <summary>Levenshtein distance (names are short, so the plain table is fine).</summary>
    private static int Distance(string a, string b)
    {
        var previous = new int[b.Length + 1];
        var current = new int[b.Length + 1];
        for (var j = 0; j <= b.Length; j++)
        {
            previous[j] = j;
        }

        for (var i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (var j = 1; j <= b.Length; j++)
            {
                var cost = a[i - 1] == b[j - 1] ? 0 : 1;
                current[j] = Math.Min(Math.Min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }

            (previous, current) = (current, previous);
        }

        return previous[b.Length];
    }
}
