using System.Text;

namespace Dedup.Core.Interop;

/// <summary>
/// The encoding of <c>Paths.KernelNames</c> (read its remarks): a name's bytes decoded as UTF-8 with every byte that is
/// not valid UTF-8 kept as U+DC80 + byte, and back. Here, below the system calls that need it (the kernel-name
/// marshaller, the <c>*at</c> helpers), so <c>Interop</c> depends on no layer above it; <c>KernelNames</c> is its public face.
/// </summary>
internal static class KernelNameCodec
{
    private const char EscapeBase = '\uDC00';

    /// <summary>Decodes a name or path from the kernel's bytes (no terminating NUL), escaping each byte that is not valid UTF-8 as U+DC80–U+DCFF.</summary>
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

    /// <summary>The exact bytes of <paramref name="text"/> followed by a NUL, for a system call; <see langword="null"/> when it cannot be encoded losslessly.</summary>
    public static byte[]? ToNullTerminated(string text)
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
    public static int MaxByteCount(int chars) => checked(chars * 3);

    /// <summary>Whether <paramref name="c"/> is the escape of a byte (a lone surrogate U+DC80–U+DCFF, when not part of a pair).</summary>
    public static bool IsEscapedByte(char c) => c is >= '\uDC80' and <= '\uDCFF';

    /// <summary>
    /// Encodes <paramref name="text"/> to the exact bytes into <paramref name="destination"/> (no NUL added); false when
    /// it does not fit or is not a string <see cref="GetString"/> can produce.
    /// </summary>
    public static bool TryEncode(ReadOnlySpan<char> text, Span<byte> destination, out int written)
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
}
