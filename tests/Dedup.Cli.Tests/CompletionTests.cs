using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>
/// The completion scripts run by the real shells (#37): a folder name with blanks stays one name, --keep offers its
/// rules rather than folders, fish has a script of its own.
/// </summary>
public sealed class CompletionTests
{
    [RequiresToolFact("bash")]
    public async Task Bash_completes_a_folder_name_with_spaces_as_one_name_however_it_is_typed()
    {
        using var tree = await TreeWithScriptAsync("bash");

        Assert.Equal(["Photos", "Photos (copy)"], Bash(tree, "dedup find Ph", 2).Order(StringComparer.Ordinal));
        Assert.Equal(["Photos (copy)"], Bash(tree, "dedup find 'Photos (c'", 2)); // as the shell split it
        Assert.Equal(["Photos (copy)"], Bash(tree, @"dedup find '""Photos (c'", 2)); // typed in double quotes
        Assert.Equal(["Photos (copy)"], Bash(tree, @"dedup find 'Photos\ \(c'", 2)); // typed with backslashes
        Assert.Equal(["Photos (copy)"], Bash(tree, "dedup link --mode hard 'Photos (c'", 4));
        Assert.Equal(["completion-script"], Bash(tree, "dedup find comp", 2)); // a PATH may be a file
    }

    [RequiresToolFact("bash")]
    public async Task Bash_offers_the_keep_rules_after_keep_and_folders_after_prefix()
    {
        using var tree = await TreeWithScriptAsync("bash");

        var rules = Bash(tree, "dedup delete --keep ''", 3);
        Assert.Equal(["first-root", "newest", "oldest", "path-order", "prefix:", "shortest-path"], rules.Order(StringComparer.Ordinal));
        Assert.Equal(["path-order"], Bash(tree, "dedup link --keep pa", 3));
        Assert.Equal(["prefix:Photos (copy)"], Bash(tree, "dedup link --keep 'prefix:Photos (c'", 3));
        // readline splits prefix:FOLDER at the colon (COMP_WORDBREAKS): the folder is then completed alone.
        Assert.Equal(["Photos (copy)"], Bash(tree, "dedup link --keep prefix : 'Photos (c'", 5));
        Assert.Equal(["fish"], Bash(tree, "dedup completion fi", 2));
        Assert.Empty(Bash(tree, "dedup find --min-size ''", 3)); // a number: no folders
    }

    [RequiresToolFact("fish")]
    public async Task Fish_completes_folders_with_spaces_keep_rules_and_version()
    {
        using var tree = await TreeWithScriptAsync("fish");

        Assert.Contains("Photos (copy)/", Fish(tree, "dedup find Photos"));
        Assert.Contains("Photos/", Fish(tree, "dedup find Photos"));
        var rules = Fish(tree, "dedup link --keep ");
        Assert.Contains("path-order", rules);
        Assert.Contains("prefix:", rules);
        Assert.DoesNotContain("Photos/", rules);
        Assert.Contains("json", Fish(tree, "dedup find --format "));
        Assert.Contains("--version", Fish(tree, "dedup --"));
        Assert.Contains("--min-size", Fish(tree, "dedup delete --min"));
        Assert.Contains("completion-script", Fish(tree, "dedup find comp")); // a PATH may be a file
    }

    [RequiresToolFact("zsh")]
    public async Task Zsh_completes_folders_with_spaces_as_one_word_commands_keep_rules_and_formats()
    {
        using var tree = await TreeWithScriptAsync("zsh");

        // What the completion system offers, as zsh would insert it: the blanks and parentheses escaped, one word.
        Assert.Equal(["Photos", @"Photos\ \(copy\)"], Zsh(tree, "dedup find Ph"));
        Assert.Equal(["catalog", "completion", "delete", "find", "link", "report", "undo"], Zsh(tree, "dedup "));
        Assert.Equal(["first-root", "newest", "oldest", "path-order", "prefix:", "shortest-path"], Zsh(tree, "dedup link --keep "));
        Assert.Equal(["csv", "html", "json", "paths0", "text"], Zsh(tree, "dedup find --format "));
        Assert.Contains("--version", Zsh(tree, "dedup --"));
        Assert.Contains("--min-size", Zsh(tree, "dedup delete --min"));
        Assert.Equal(["completion-script"], Zsh(tree, "dedup find comp")); // a PATH may be a file
    }

    private static async Task<TempTree> TreeWithScriptAsync(string shell)
    {
        var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("Photos"));
        Directory.CreateDirectory(tree.PathOf("Photos (copy)"));
        Directory.CreateDirectory(tree.PathOf("Other"));
        var (exit, script, stderr) = await CliProcess.RunAsync(["completion", shell]);
        Assert.True(exit == 0, stderr);
        tree.Write("completion-script", script); // a file: completed as a PATH, not after a folder option
        return tree;
    }

    private static string Script(TempTree tree) => tree.PathOf("completion-script");

    /// <summary>What <c>_dedup</c> puts in COMPREPLY, one name a line, for COMP_WORDS given as bash words.</summary>
    private static string[] Bash(TempTree tree, string words, int index)
    {
        var (exit, stdout, stderr) = ProcessRunner.Run(
            "bash",
            ["-c", $"source '{Script(tree)}'; COMP_WORDS=({words}); COMP_CWORD={index}; _dedup; [ ${{#COMPREPLY[@]}} -eq 0 ] || printf '%s\\n' \"${{COMPREPLY[@]}}\""],
            workingDirectory: tree.Root);
        Assert.True(exit == 0, stderr);
        return stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries);
    }

    /// <summary>fish's completions (without descriptions) for a command line typed up to its end.</summary>
    private static string[] Fish(TempTree tree, string line)
    {
        var (exit, stdout, stderr) = ProcessRunner.Run(
            "fish",
            ["--no-config", "-c", $"source '{Script(tree)}'; complete -C '{line}'"],
            workingDirectory: tree.Root);
        Assert.True(exit == 0, stderr);
        return stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.Split('\t')[0]).ToArray();
    }

    /// <summary>
    /// What zsh's completion system offers when <paramref name="line"/> is typed followed by a Tab: a real interactive
    /// zsh driven through a pseudo-terminal (zsh/zpty) with the script sourced and <c>compadd</c> wrapped to record each
    /// match; the driver waits for a marker the completion prints when it has finished, not for a time.
    /// </summary>
    private static string[] Zsh(TempTree tree, string line)
    {
        const string driver = """
            zmodload zsh/zpty || exit 3
            zpty z zsh -f -i
            zpty -w z "PROMPT=; autoload -U compinit; compinit -u -D; source ${(q)1}; __out=${(q)3}"
            zpty -w z 'bindkey "^I" complete-word; zstyle ":completion:*" insert-tab false; comppostfuncs=(__done)'
            zpty -w z '__done() { print -r -- COMPLETION-END; }'
            zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __hits; builtin compadd -A __hits "$@"; print -rl -- $__hits >> $__out; builtin compadd "$@"; }'
            zpty -w z 'print -r -- READY-$((6*7))'
            while zpty -r z line; do [[ $line == READY-42* ]] && break; done
            zpty -w -n z "$2"$'\t'
            while zpty -r z line; do [[ $line == *COMPLETION-END* ]] && break; done
            zpty -d z
            """;
        tree.Write("zsh-driver", driver);
        var matches = tree.PathOf("zsh-matches");
        File.Delete(matches);
        var (exit, _, stderr) = ProcessRunner.Run("zsh", ["-f", tree.PathOf("zsh-driver"), Script(tree), line, matches], workingDirectory: tree.Root, timeoutSeconds: 60);
        Assert.True(exit == 0, stderr);
        return File.Exists(matches)
            ? File.ReadAllLines(matches).Where(m => m.Length > 0).Distinct().Order(StringComparer.Ordinal).ToArray()
            : [];
    }
}
