using System.CommandLine;
using Dedup.Core.Paths;

namespace Dedup.Cli.Selection;

/// <summary>
/// <c>--files-from FILE|-</c>: the paths to scan, read as the kernel's exact bytes (a name that is not UTF-8 stays
/// its bytes, as a PATH argument does: <see cref="KernelNames"/>). NUL-separated when the list holds a NUL byte
/// (<c>find -print0</c>, <c>dedup find --format paths0</c>), else one path a line; empty entries are skipped.
/// </summary>
internal static class PathList
{
    /// <summary>The <c>--files-from</c> option as <c>find</c>, <c>link</c> and <c>delete</c> take it.</summary>
    public static Option<string?> CreateOption() => ExactFileNames.Require(new Option<string?>("--files-from")
    {
        Description = "Also scan the paths listed in this file ('-': standard input), NUL-separated when the list holds a NUL byte (find -print0), else one a line; names are taken as their exact bytes.",
    });

    /// <summary>
    /// The PATH arguments followed by the paths <paramref name="list"/> names (none when it is <see langword="null"/>);
    /// <see langword="null"/>, with the line to print in <paramref name="problem"/>, when the list cannot be read.
    /// </summary>
    public static string[]? Gather(string[] paths, string? list, out string? problem)
    {
        problem = null;
        if (list is null)
        {
            return paths;
        }

        try
        {
            return [.. paths, .. Read(list)];
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            problem = $"--files-from '{PathText.Escape(list)}': {PathText.EscapeMessage(ex.Message)}";
            return null;
        }
    }

    /// <summary>The paths of the list at <paramref name="source"/> (<c>-</c>: standard input).</summary>
    /// <exception cref="IOException">The list cannot be read.</exception>
    /// <exception cref="UnauthorizedAccessException">The list cannot be opened.</exception>
    public static List<string> Read(string source)
    {
        byte[] bytes;
        if (source == "-")
        {
            using var input = Console.OpenStandardInput();
            using var buffer = new MemoryStream();
            input.CopyTo(buffer);
            bytes = buffer.ToArray();
        }
        else
        {
            bytes = File.ReadAllBytes(source);
        }

        return Split(bytes);
    }

    /// <summary>The entries of <paramref name="bytes"/>: NUL-separated if it holds a NUL, else newline-separated.</summary>
    public static List<string> Split(ReadOnlySpan<byte> bytes)
    {
        var separator = bytes.IndexOf((byte)0) >= 0 ? (byte)0 : (byte)'\n';
        var paths = new List<string>();
        while (!bytes.IsEmpty)
        {
            var end = bytes.IndexOf(separator);
            var entry = end < 0 ? bytes : bytes[..end];
            if (!entry.IsEmpty)
            {
                paths.Add(KernelNames.GetString(entry));
            }

            bytes = end < 0 ? [] : bytes[(end + 1)..];
        }

        return paths;
    }
}
