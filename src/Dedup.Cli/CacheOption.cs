using System.CommandLine;
using System.Runtime.InteropServices;
using Dedup.Cli.Interop;
using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Paths;

namespace Dedup.Cli;

/// <summary>
/// <c>dedup find --cache FILE</c>: refuses a path that names something other than a regular file before anything is
/// opened (SQLite would otherwise write FILE-journal beside it: <c>--cache /dev/null</c> left /dev/null-journal), and
/// says which native library is missing when SQLite cannot start, instead of "a type initializer threw an exception".
/// </summary>
internal static class CacheOption
{
    private const string NativeLibraryName = "e_sqlite3";

    public static Option<FileInfo?> Require(Option<FileInfo?> option)
    {
        option.Validators.Add(result =>
        {
            foreach (var token in result.Tokens)
            {
                if (KindOf(token.Value) is { } kind)
                {
                    result.AddError($"{option.Name}: '{PathText.Escape(token.Value)}' is {kind}, not a regular file; give a file (created if missing)");
                    return;
                }
            }
        });
        return option;
    }

    /// <summary>The cache at <paramref name="file"/>, or <see langword="null"/> after a one-line warning when SQLite's native library cannot be loaded.</summary>
    public static async Task<SqliteHashCache?> OpenAsync(FileInfo file)
    {
        if (NativeLibrary.TryLoad(NativeLibraryName, typeof(SqliteHashCache).Assembly, null, out _))
        {
            return new SqliteHashCache(file.FullName);
        }

        var name = OperatingSystem.IsWindows() ? $"{NativeLibraryName}.dll" : OperatingSystem.IsMacOS() ? $"lib{NativeLibraryName}.dylib" : $"lib{NativeLibraryName}.so";
        await Console.Error.WriteLineAsync($"dedup: warning: --cache not used: SQLite's native library {name} is neither in {PathText.Escape(AppContext.BaseDirectory)} (beside the program) nor on the system's library path; the scan runs without a cache").ConfigureAwait(false);
        return null;
    }

    /// <summary>What <paramref name="path"/> names when that is neither a regular file nor a folder (links followed); <see langword="null"/> otherwise, or when it does not exist.</summary>
    private static string? KindOf(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        // Missing (created by SQLite) or unreachable (SQLite's own warning names why): nothing to refuse here.
        return Libc.StatusOf(path, follow: true) is { Type: not Libc.Regular and not Libc.Folder } status
            ? Libc.TypeName(status.Type) // a folder is refused by ExactFileNames, by name
            : null;
    }
}
