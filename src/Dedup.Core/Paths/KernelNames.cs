using System.Diagnostics.CodeAnalysis;
using Dedup.Core.Interop;

namespace Dedup.Core.Paths;

/// <summary>
/// The lossless mapping between a Unix file name (the kernel's bytes) and the .NET string the library keeps it in.
/// </summary>
/// <remarks>
/// <para>
/// A Unix name is any sequence of bytes but NUL and <c>/</c>; most are UTF-8, some are not (a name written in Latin-1,
/// or made by a script). The library decodes a name as UTF-8 and keeps every byte that is not part of a valid UTF-8
/// sequence as the lone surrogate <c>U+DC80 + byte</c> (U+DC80–U+DCFF for bytes 0x80–0xFF; the "surrogateescape"
/// scheme of Python). Valid UTF-8 never decodes to a lone surrogate, so the mapping is a bijection: a valid UTF-8 name
/// is the same string as before, and <see cref="TryGetBytes(string, out byte[])"/> gives back exactly the bytes the
/// kernel listed. Every system call the library makes with a scanned name on Linux goes through this encoding, never
/// through a lossy one (which would turn such a byte into U+FFFD and name another file).
/// </para>
/// <para>
/// Only strings this decoding can produce are encoded: a string with a NUL, a lone surrogate outside
/// U+DC80–U+DCFF, or escaped bytes that would form valid UTF-8 (and so decode to different text) is refused.
/// </para>
/// </remarks>
public static class KernelNames
{
    /// <summary>Decodes a name or path from the kernel's bytes, escaping each byte that is not valid UTF-8 as U+DC80–U+DCFF.</summary>
    /// <param name="bytes">The exact bytes (no terminating NUL).</param>
    /// <returns>The name as a string; the plain UTF-8 decoding when the bytes are valid UTF-8.</returns>
    public static string GetString(ReadOnlySpan<byte> bytes) => KernelNameCodec.GetString(bytes);

    /// <summary>Whether <paramref name="text"/> holds an escaped byte (a lone surrogate U+DC80–U+DCFF), that is, a name that is not valid UTF-8.</summary>
    /// <param name="text">A name or path.</param>
    /// <returns><see langword="true"/> when the text holds at least one lone surrogate U+DC80–U+DCFF.</returns>
    public static bool HasEscapedBytes(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            if (char.IsHighSurrogate(c) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
            {
                i++;
            }
            else if (IsEscapedByte(c))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The exact bytes of a name or path decoded by <see cref="GetString"/>.</summary>
    /// <param name="text">A name or path.</param>
    /// <param name="bytes">The bytes (no terminating NUL), or <see langword="null"/> when the text is not one this encoding can produce (see the remarks on <see cref="KernelNames"/>).</param>
    /// <returns>Whether the text could be encoded losslessly.</returns>
    public static bool TryGetBytes(string text, [NotNullWhen(true)] out byte[]? bytes)
    {
        ArgumentNullException.ThrowIfNull(text);
        var buffer = new byte[MaxByteCount(text.Length)];
        if (!TryEncode(text.AsSpan(), buffer, out var written))
        {
            bytes = null;
            return false;
        }

        bytes = buffer.AsSpan(0, written).ToArray();
        return true;
    }

    /// <summary>The exact bytes of <paramref name="text"/> followed by a NUL, for a system call; <see langword="null"/> when it cannot be encoded losslessly.</summary>
    internal static byte[]? ToNullTerminated(string text) => KernelNameCodec.ToNullTerminated(text);

    /// <summary>The most bytes <paramref name="chars"/> characters can encode to.</summary>
    internal static int MaxByteCount(int chars) => KernelNameCodec.MaxByteCount(chars);

    /// <summary>Whether <paramref name="c"/> is the escape of a byte (a lone surrogate U+DC80–U+DCFF, when not part of a pair).</summary>
    internal static bool IsEscapedByte(char c) => KernelNameCodec.IsEscapedByte(c);

    /// <summary>
    /// Encodes <paramref name="text"/> to the exact bytes into <paramref name="destination"/> (no NUL added); false when
    /// it does not fit or is not a string <see cref="GetString"/> can produce.
    /// </summary>
    internal static bool TryEncode(ReadOnlySpan<char> text, Span<byte> destination, out int written) => KernelNameCodec.TryEncode(text, destination, out written);

    /// <summary>
    /// A name or path as text that any UTF-8 writer accepts (JSON, XML, a log): each escaped byte (and any other lone
    /// surrogate) shown as U+FFFD. Lossy, for people: keep <see cref="TryGetBytes(string, out byte[])"/>'s bytes beside
    /// it when the name must be found again, as the JSON report's <c>pathBytes</c> does.
    /// </summary>
    /// <param name="path">A name or path.</param>
    /// <returns>The text; the same string when it holds no lone surrogate.</returns>
    public static string ToLossyString(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        char[]? chars = null;
        for (var i = 0; i < path.Length; i++)
        {
            var c = path[i];
            if (char.IsHighSurrogate(c) && i + 1 < path.Length && char.IsLowSurrogate(path[i + 1]))
            {
                i++;
            }
            else if (char.IsSurrogate(c))
            {
                chars ??= path.ToCharArray();
                chars[i] = '\uFFFD';
            }
        }

        return chars is null ? path : new string(chars);
    }
}
