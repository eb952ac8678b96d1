using System.Globalization;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Trash;

/// <summary>
/// The name a trashed file gets in <c>files/</c>. Its info file is that name plus <c>.trashinfo</c>, which must fit
/// NAME_MAX (255 bytes) too, so a long name is shortened (the specification allows any unique name there; the original
/// full path is in the info file's <c>Path=</c>). Uniqueness itself comes from the O_EXCL reservation of the info file.
/// </summary>
internal static class TrashNames
{
    public const string InfoSuffix = ".trashinfo";

    /// <summary>The longest name in <c>files/</c> whose info file name still fits NAME_MAX.</summary>
    public const int MaxNameBytes = 255 - 10;

    /// <summary>A longer "extension" is part of the name (it would leave too little of the rest to tell files apart).</summary>
    private const int MaxExtensionBytes = 32;

    /// <summary>
    /// The <paramref name="attempt"/>th name tried for <paramref name="name"/>: the name itself, then <c>stem.2.ext</c>,
    /// <c>stem.3.ext</c>…; with the stem cut (at a character's first byte) so the whole fits <see cref="MaxNameBytes"/>.
    /// </summary>
    public static string Candidate(string name, int attempt)
    {
        var extension = Path.GetExtension(name);
        var counter = attempt == 1 ? string.Empty : "." + attempt.ToString(CultureInfo.InvariantCulture);
        var stem = name[..^extension.Length];
        if (!KernelNames.TryGetBytes(stem, out var stemBytes) || !KernelNames.TryGetBytes(extension, out var extensionBytes))
        {
            return stem + counter + extension; // not a name the kernel listed; the system call refuses it anyway
        }

        if (stemBytes.Length + counter.Length + extensionBytes.Length <= MaxNameBytes)
        {
            return stem + counter + extension;
        }

        if (extensionBytes.Length > MaxExtensionBytes)
        {
            stemBytes = [.. stemBytes, .. extensionBytes];
            extension = string.Empty;
            extensionBytes = [];
        }

        var cut = MaxNameBytes - counter.Length - extensionBytes.Length;
        // Never between a character's bytes (at most three follow its first); a longer run is not UTF-8 and cuts anywhere.
        for (var back = 0; back < 3 && (stemBytes[cut] & 0xC0) == 0x80; back++)
        {
            cut--;
        }

        return KernelNames.GetString(stemBytes.AsSpan(0, cut)) + counter + extension;
    }
}
