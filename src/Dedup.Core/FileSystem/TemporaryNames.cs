namespace Dedup.Core.FileSystem;

/// <summary>
/// The names replacements are created under before being renamed into place: <c>.dedup-tmp-</c> followed by 32
/// lowercase hexadecimal digits, in the duplicate's own folder. A walk's convention, not one action's: the actions
/// create them, the folder comparison leaves them out of a folder's content, the trash and the leftover search find
/// them by it. A name alone proves nothing (a user may have such a file), so whoever removes one checks what it holds.
/// </summary>
internal static class TemporaryNames
{
    public const string Prefix = ".dedup-tmp-";

    /// <summary>Hexadecimal digits after <see cref="Prefix"/>.</summary>
    private const int Digits = 32;

    public static string NewName() => Prefix + Guid.NewGuid().ToString("N");

    /// <summary>Whether <paramref name="name"/> is exactly a temporary name (the prefix, then 32 lowercase hexadecimal digits).</summary>
    public static bool IsTemporaryName(string name)
    {
        if (name.Length != Prefix.Length + Digits || !name.StartsWith(Prefix, StringComparison.Ordinal))
        {
            return false;
        }

        for (var i = Prefix.Length; i < name.Length; i++)
        {
            if (!IsDigit(name[i]))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The same test on a name's bytes (as the scan stores them), without decoding it.</summary>
    public static bool IsTemporaryName(ReadOnlySpan<byte> name)
    {
        if (name.Length != Prefix.Length + Digits || !name.StartsWith(".dedup-tmp-"u8))
        {
            return false;
        }

        foreach (var b in name[Prefix.Length..])
        {
            if (!IsDigit((char)b))
            {
                return false;
            }
        }

        return true;
    }

    private static bool IsDigit(char c) => c is (>= '0' and <= '9') or (>= 'a' and <= 'f');
}
