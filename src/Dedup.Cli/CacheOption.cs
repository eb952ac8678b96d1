using System.CommandLine;
using System.Runtime.InteropServices;
using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Paths;

namespace Dedup.Cli;

/// <summary>
/// <c>dedup find --cache FILE</c>: refuses a path that names something other than a regular file before anything is
/// opened (SQLite would otherwise write FILE-journal beside it: <c>--cache /dev/null</c> left /dev/null-journal), and
/// says which native library is missing when SQLite cannot start, instead of "a type initializer threw an exception".
/// </summary>
internal static partial class CacheOption
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
    private static unsafe string? KindOf(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        const int AtFdCwd = -100;
        const uint StatxType = 0x1;
        var buffer = stackalloc byte[256]; // struct statx; stx_mode is the u16 at offset 28
        if (Statx(AtFdCwd, path, 0, StatxType, buffer) != 0)
        {
            return null; // missing (created by SQLite) or unreachable (SQLite's own warning names why)
        }

        return (*(ushort*)(buffer + 28) & 0xF000) switch
        {
            0x8000 or 0x4000 => null, // a regular file, or a folder (refused by ExactFileNames, by name)
            0x2000 => "a character device",
            0x6000 => "a block device",
            0x1000 => "a named pipe",
            0xC000 => "a socket",
            _ => "not a file",
        };
    }

    [LibraryImport("libc", EntryPoint = "statx", StringMarshalling = StringMarshalling.Utf8)]
    private static unsafe partial int Statx(int directory, string path, int flags, uint mask, byte* buffer);
}
