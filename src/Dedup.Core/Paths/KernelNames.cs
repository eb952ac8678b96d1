using System.Diagnostics.CodeAnalysis;
using System.Text;

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
    private const char EscapeBase = '\uDC00';

    /// <summary>Decodes a name or path from the kernel's bytes, escaping each byte that is not valid UTF-8 as U+DC80–U+DCFF.</summary>
    /// <param name="bytes">The exact bytes (no terminating NUL).</param>
    /// <returns>The name as a string; the plain UTF-8 decoding when the bytes are valid UTF-8.</returns>
    public static string GetString(ReadOnlySpan<byte> bytes)
    {
        if (Utf8Text.IsValid(bytes))
        {
            return Encoding.UTF8.GetString(bytes);
        }

        var chars = new char[bytes.Length];
        var count = 0;
        var i = 0;
        while (i < bytes.Length)
        {
            var start = i;
            int length;
            while (i < bytes.Length && (length = ValidSequenceLength(bytes, i)) > 0)
            {
                i += length;
            }

            if (i > start)
            {
                count += Encoding.UTF8.GetChars(bytes[start..i], chars.AsSpan(count));
            }

            if (i < bytes.Length)
            {
                chars[count++] = (char)(EscapeBase + bytes[i]);
                i++;
            }
        }

        return new string(chars, 0, count);
    }

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
    internal static byte[]? ToNullTerminated(string text)
    {
        var buffer = new byte[MaxByteCount(text.Length) + 1];
        if (!TryEncode(text.AsSpan(), buffer.AsSpan(0, buffer.Length - 1), out var written))
        {
            return null;
        }

        Array.Resize(ref buffer, written + 1);
        buffer[written] = 0;
        return buffer;
    }

    /// <summary>The most bytes <paramref name="chars"/> characters can encode to.</summary>
    internal static int MaxByteCount(int chars) => checked(chars * 3);

    /// <summary>Whether <paramref name="c"/> is the escape of a byte (a lone surrogate U+DC80–U+DCFF, when not part of a pair).</summary>
    internal static bool IsEscapedByte(char c) => c is >= '\uDC80' and <= '\uDCFF';

    /// <summary>
    /// Encodes <paramref name="text"/> to the exact bytes into <paramref name="destination"/> (no NUL added); false when
    /// it does not fit or is not a string <see cref="GetString"/> can produce.
    /// </summary>
    internal static bool TryEncode(ReadOnlySpan<char> text, Span<byte> destination, out int written)
    {
        written = 0;
        var escaped = false;
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            int codePoint;
            if (c == '\0')
            {
                return false;
            }

            if (char.IsHighSurrogate(c))
            {
                if (i + 1 >= text.Length || !char.IsLowSurrogate(text[i + 1]))
                {
                    return false;
                }

                codePoint = char.ConvertToUtf32(c, text[++i]);
            }
            else if (char.IsLowSurrogate(c))
            {
                if (!IsEscapedByte(c) || written >= destination.Length)
                {
                    return false;
                }

                destination[written++] = (byte)(c - EscapeBase);
                escaped = true;
                continue;
            }
            else
            {
                codePoint = c;
            }

            if (!TryWriteUtf8(codePoint, destination, ref written))
            {
                return false;
            }
        }

        // Escaped bytes that happen to form valid UTF-8 would name the file whose name is that text, not this one.
        return !escaped || GetString(destination[..written]).AsSpan().SequenceEqual(text);
    }

    private static bool TryWriteUtf8(int codePoint, Span<byte> destination, ref int written)
    {
        var length = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
        if (written + length > destination.Length)
        {
            return false;
        }

        var d = destination.Slice(written, length);
        switch (length)
        {
            case 1:
                d[0] = (byte)codePoint;
                break;
            case 2:
                d[0] = (byte)(0xC0 | (codePoint >> 6));
                d[1] = (byte)(0x80 | (codePoint & 0x3F));
                break;
            case 3:
                d[0] = (byte)(0xE0 | (codePoint >> 12));
                d[1] = (byte)(0x80 | ((codePoint >> 6) & 0x3F));
                d[2] = (byte)(0x80 | (codePoint & 0x3F));
                break;
            default:
                d[0] = (byte)(0xF0 | (codePoint >> 18));
                d[1] = (byte)(0x80 | ((codePoint >> 12) & 0x3F));
                d[2] = (byte)(0x80 | ((codePoint >> 6) & 0x3F));
                d[3] = (byte)(0x80 | (codePoint & 0x3F));
                break;
        }

        written += length;
        return true;
    }

    /// <summary>The length of the valid UTF-8 sequence starting at <paramref name="i"/> (shortest form, no surrogates, at most U+10FFFF), or 0.</summary>
    private static int ValidSequenceLength(ReadOnlySpan<byte> s, int i)
    {
        var b0 = s[i];
        if (b0 < 0x80)
        {
            return 1;
        }

        var length = b0 switch
        {
            >= 0xC2 and <= 0xDF => 2,
            >= 0xE0 and <= 0xEF => 3,
            >= 0xF0 and <= 0xF4 => 4,
            _ => 0,
        };
        if (length == 0 || i + length > s.Length)
        {
            return 0;
        }

        var b1 = s[i + 1];
        if ((b1 & 0xC0) != 0x80
            || (b0 == 0xE0 && b1 < 0xA0)
            || (b0 == 0xED && b1 >= 0xA0)
            || (b0 == 0xF0 && b1 < 0x90)
            || (b0 == 0xF4 && b1 >= 0x90))
        {
            return 0;
        }

        for (var k = 2; k < length; k++)
        {
            if ((s[i + k] & 0xC0) != 0x80)
            {
                return 0;
            }
        }

        return length;
    }

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
