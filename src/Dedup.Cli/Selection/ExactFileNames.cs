using System.CommandLine;
using Dedup.Core.Paths;

namespace Dedup.Cli.Selection;

/// <summary>
/// Refuses a file option (<c>-o</c>, <c>--cache</c>, <c>--log</c>, <c>--from-report</c>) whose name has bytes that are
/// not UTF-8: the command line keeps them exactly (<see cref="KernelArguments"/>), but .NET's file APIs would write
/// U+FFFD in their place and open or replace another file. Scanned folders and files may have any name (#17).
/// Refuses a folder too, by name, before anything is scanned: opening one would fail only later, as "access denied"
/// (<c>--from-report</c>, <c>--log</c>) or after the whole scan (<c>-o</c>), and a cache in a folder would silently not be saved.
/// </summary>
internal static class ExactFileNames
{
    public static T Require<T>(T option)
        where T : Option
    {
        option.Validators.Add(result =>
        {
            foreach (var token in result.Tokens)
            {
                // KernelNames keeps a byte that is not UTF-8 as U+DC80 + byte: a lone surrogate no file API can encode.
                // U+FFFD is refused too: it is what is left of such a byte when the exact bytes could not be recovered.
                if (token.Value.AsSpan().IndexOfAnyInRange('\uDC80', '\uDCFF') >= 0 || token.Value.Contains('\uFFFD', StringComparison.Ordinal))
                {
                    result.AddError($"{option.Name}: the file name has bytes that are not UTF-8 (or U+FFFD), which this option cannot open exactly; give a name that is UTF-8 (scanned folders may have any name)");
                    return;
                }

                if (Directory.Exists(token.Value)) // a symbolic link to a folder too
                {
                    result.AddError($"{option.Name}: '{PathText.Escape(token.Value)}' is a folder; give a file");
                    return;
                }
            }
        });
        return option;
    }
}
