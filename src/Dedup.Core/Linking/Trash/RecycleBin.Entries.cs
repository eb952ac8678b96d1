using System.Buffers.Binary;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking.Trash;

/// <summary>What a Recycle Bin <c>$I…</c> file says: the deleted file's size, when it was deleted, and its original path.</summary>
internal readonly record struct RecycleBinInfo(long Size, DateTime DeletedUtc, string OriginalPath);

/// <summary>
/// Finding a file in a user's Recycle Bin folder (<c>X:\$Recycle.Bin\&lt;SID&gt;\</c>) after SHFileOperationW moved it
/// there: Windows names the moved file <c>$R</c> + six random characters + its extension, and writes beside it a
/// <c>$I</c> file of the same suffix that holds the original path. Platform-neutral (files and identities only), so
/// the parsing and matching are tested on Linux with crafted files.
/// </summary>
internal static partial class RecycleBin
{
    private const int FileTimeOffset = 16;
    private const int Version1PathBytes = 520; // MAX_PATH UTF-16 units

    /// <summary>
    /// Reads a <c>$I…</c> file: an 8-byte version (1: Vista to 8.1, a fixed MAX_PATH name; 2: Windows 10 on, a 4-byte
    /// length in UTF-16 units, the NUL included, before the name), the 8-byte size, the deletion time (FILETIME, UTC),
    /// then the original path in UTF-16. <see langword="null"/> for anything else (never guessed).
    /// </summary>
    internal static RecycleBinInfo? ParseInfo(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length < 24)
        {
            return null;
        }

        var version = BinaryPrimitives.ReadInt64LittleEndian(bytes);
        var size = BinaryPrimitives.ReadInt64LittleEndian(bytes[8..]);
        var time = BinaryPrimitives.ReadInt64LittleEndian(bytes[FileTimeOffset..]);
        ReadOnlySpan<byte> name;
        if (version == 1)
        {
            if (bytes.Length < 24 + Version1PathBytes)
            {
                return null;
            }

            name = bytes.Slice(24, Version1PathBytes);
        }
        else if (version == 2)
        {
            if (bytes.Length < 28)
            {
                return null;
            }

            var units = BinaryPrimitives.ReadInt32LittleEndian(bytes[24..]);
            if (units <= 1 || units > 32_768 || bytes.Length < 28 + (units * 2))
            {
                return null;
            }

            name = bytes.Slice(28, units * 2);
        }
        else
        {
            return null;
        }

        var path = System.Text.Encoding.Unicode.GetString(name.ToArray());
        var end = path.IndexOf('\0', StringComparison.Ordinal);
        path = end < 0 ? path : path[..end];
        if (path.Length == 0 || size < 0 || time < 0 || time > DateTime.MaxValue.ToFileTimeUtc())
        {
            return null;
        }

        return new RecycleBinInfo(size, DateTime.FromFileTimeUtc(time), path);
    }

    /// <summary>The <c>$R…</c> name of the data an <c>$I…</c> name describes; <see langword="null"/> for another name.</summary>
    internal static string? DataName(string infoName) =>
        infoName.Length > 2 && infoName.StartsWith("$I", StringComparison.Ordinal) ? "$R" + infoName[2..] : null;

    /// <summary>
    /// The <c>$I…</c> names whose original path is <paramref name="original"/> (compared as Windows compares names,
    /// ignoring case), newest deletion first: the candidates to check by identity.
    /// </summary>
    internal static IEnumerable<string> Candidates(IEnumerable<(string InfoName, RecycleBinInfo Info)> entries, string original) =>
        entries.Where(e => string.Equals(e.Info.OriginalPath, original, StringComparison.OrdinalIgnoreCase))
            .OrderByDescending(e => e.Info.DeletedUtc)
            .Select(e => e.InfoName);

    /// <summary>
    /// Where the file <paramref name="identity"/>, just moved from <paramref name="original"/>, is in the Recycle Bin
    /// folder <paramref name="bin"/>: the <c>$R…</c> file that is that file (by identity: volume and file id), and its
    /// <c>$I…</c> file. The entries naming the original path are tried first, newest first; if the path was written in
    /// another form (a short name, another case), every <c>$R…</c> file is checked. <see langword="null"/> when none is it.
    /// </summary>
    internal static TrashedLocation? Locate(string bin, string original, FileIdentity identity)
    {
        List<(string InfoName, RecycleBinInfo Info)> entries;
        try
        {
            entries = [];
            foreach (var info in Directory.EnumerateFiles(bin, "$I*"))
            {
                if (ReadInfo(info) is { } parsed)
                {
                    entries.Add((Path.GetFileName(info), parsed));
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }

        var tried = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (var infoName in Candidates(entries, original).Concat(entries.Select(e => e.InfoName)))
        {
            if (tried.Add(infoName) && DataName(infoName) is { } dataName && IsFile(Path.Combine(bin, dataName), identity))
            {
                return new TrashedLocation(Path.Combine(bin, dataName), Path.Combine(bin, infoName));
            }
        }

        return null;
    }

    private static RecycleBinInfo? ReadInfo(string path)
    {
        try
        {
            var bytes = File.ReadAllBytes(path);
            return bytes.Length > 70_000 ? null : ParseInfo(bytes);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Whether <paramref name="path"/>, opened as itself, is a regular file with <paramref name="identity"/>.</summary>
    internal static bool IsFile(string path, FileIdentity identity)
    {
        using var handle = PortableFile.TryOpen(path, out _);
        if (handle is null)
        {
            return false;
        }

        try
        {
            var status = PortableFile.StatusOf(handle);
            return status.Kind == PortableFileKind.RegularFile && status.Identity == identity;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }
}
