namespace Dedup.Cli.Output;

/// <summary>
/// The command line a report shows as its options (the HTML page's "Options"): the arguments as given, except the
/// value of <c>--catalog</c>, a connection string that may hold a password and must not end up in a page that is
/// passed around.
/// </summary>
internal static class CommandLineText
{
    public static string Current() => Of(Environment.GetCommandLineArgs().Skip(1).ToArray());

    internal static string Of(IReadOnlyList<string> args)
    {
        var words = new List<string> { "dedup" };
        for (var i = 0; i < args.Count; i++)
        {
            if (args[i] == "--catalog")
            {
                words.Add("--catalog");
                words.Add("…");
                i++;
            }
            else
            {
                words.Add(args[i].StartsWith("--catalog=", StringComparison.Ordinal) ? "--catalog=…" : args[i]);
            }
        }

        return string.Join(" ", words);
    }
}
