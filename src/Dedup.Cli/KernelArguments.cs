using System.Text;
using Dedup.Core.Paths;

namespace Dedup.Cli;

/// <summary>
/// The command line as the kernel passed it. .NET decodes arguments as UTF-8 and turns a byte that is not valid UTF-8
/// into U+FFFD, so a folder named with byte 0xff could not be given as a root ("does not exist"). On Linux the exact
/// bytes are in <c>/proc/self/cmdline</c>: such an argument is replaced by its <see cref="KernelNames"/> form, which the
/// library maps back to the same bytes (#17).
/// </summary>
internal static class KernelArguments
{
    public static string[] Recover(string[] args) =>
        OperatingSystem.IsLinux() && Array.Exists(args, a => a.Contains('\uFFFD', StringComparison.Ordinal)) ? Recover(args, ReadCommandLine()) : args;

    /// <summary>Replaces each lossy argument by the exact one; <paramref name="commandLine"/> ends with the program's arguments.</summary>
    internal static string[] Recover(string[] args, byte[][] commandLine)
    {
        if (commandLine.Length < args.Length)
        {
            return args;
        }

        var recovered = (string[])args.Clone();
        var first = commandLine.Length - args.Length;
        for (var i = 0; i < args.Length; i++)
        {
            var raw = commandLine[first + i];

            // Replaced only when the bytes are the argument .NET decoded: a launcher that rewrote the arguments
            // leaves them as they were.
            if (args[i].Contains('\uFFFD', StringComparison.Ordinal) && Encoding.UTF8.GetString(raw) == args[i])
            {
                recovered[i] = KernelNames.GetString(raw);
            }
        }

        return recovered;
    }

    private static byte[][] ReadCommandLine()
    {
        byte[] bytes;
        try
        {
            bytes = File.ReadAllBytes("/proc/self/cmdline");
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return [];
        }

        // NUL-terminated arguments; the last one's terminator ends the file.
        var end = bytes.Length > 0 && bytes[^1] == 0 ? bytes.Length - 1 : bytes.Length;
        var parts = new List<byte[]>();
        var start = 0;
        for (var i = 0; i <= end; i++)
        {
            if (i == end || bytes[i] == 0)
            {
                parts.Add(bytes[start..i]);
                start = i + 1;
            }
        }

        return [.. parts];
    }
}
