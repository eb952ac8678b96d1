using System.Globalization;
using System.Text;
using Dedup.Core.Pooling;

namespace Dedup.Core.Paths;

/// <summary>
/// Shows file names and paths in human-readable output (text reports, dry-run plans, error messages) without letting
/// a name disguise itself or drive the terminal: a name holding a newline, carriage return, escape sequence or
/// right-to-left override would otherwise print a line that looks like another file's, or recolour the terminal.
/// Machine-readable output (JSON, CSV) carries the exact names instead.
/// </summary>
/// <remarks>
/// <para>Rules of <see cref="Escape"/>, in the manner of <c>ls</c> quoting:</para>
/// <list type="bullet">
/// <item><description>a backslash becomes <c>\\</c>;</description></item>
/// <item><description>C0 controls and DEL become <c>\n</c>, <c>\r</c>, <c>\t</c>, <c>\e</c> (ESC) or <c>\xHH</c> (two upper-case hex digits);</description></item>
/// <item><description>a byte of a Unix name that is not valid UTF-8 (kept as the lone surrogate U+DC80–U+DCFF, see
/// <see cref="KernelNames"/>) becomes <c>\xHH</c>, the byte itself (<c>\x80</c>–<c>\xFF</c>);</description></item>
/// <item><description>C1 controls (U+0080–U+009F), invisible format characters (Unicode category Cf: the bidirectional
/// controls U+202A–U+202E, U+2066–U+2069, U+200E and U+200F, zero-width characters, the byte-order mark, tag
/// characters, …), the line and paragraph separators U+2028 and U+2029, and other lone surrogates become
/// <c>\u{XXXX}</c> (the code point in upper-case hex, at least four digits);</description></item>
/// <item><description>every other character is shown as it is.</description></item>
/// </list>
/// <para>
/// The mapping is injective: every escape starts with a backslash and a literal backslash is doubled, so two different
/// names never print the same, and a name that needs none of these is returned unchanged (the same instance).
/// </para>
/// </remarks>
public static class PathText
{
    /// <summary>Escapes a file name, path or other text taken from the file system for human-readable output (see the rules on <see cref="PathText"/>).</summary>
    /// <param name="text">The exact name or path.</param>
    /// <returns><paramref name="text"/> itself when it needs no escaping; otherwise its escaped form.</returns>
    public static string Escape(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var first = IndexOfEscaped(text, escapeBackslash: true);
        return first < 0 ? text : EscapeFrom(text, first, escapeBackslash: true);
    }

    /// <summary>
    /// Escapes the control and invisible characters of a message but leaves its backslashes alone: for free text
    /// such as an exception message or a <see cref="Linking.DuplicateActionOutcome.Reason"/>, which may already embed
    /// paths escaped with <see cref="Escape"/>. A last line of defence before printing a message, not a way to show a
    /// name: unlike <see cref="Escape"/> it is not injective.
    /// </summary>
    /// <param name="message">The message.</param>
    /// <returns><paramref name="message"/> itself when it holds no such characters; otherwise its escaped form.</returns>
    public static string EscapeMessage(string message)
    {
        ArgumentNullException.ThrowIfNull(message);
        var first = IndexOfEscaped(message, escapeBackslash: false);
        return first < 0 ? message : EscapeFrom(message, first, escapeBackslash: false);
    }

    private static string EscapeFrom(string text, int first, bool escapeBackslash)
    {
        using var rented = StringBuilderPool.Shared.RentScoped();
        var builder = rented.Builder.Append(text, 0, first);
        for (var i = first; i < text.Length; i++)
        {
            i = AppendOne(builder, text, i, escapeBackslash);
        }

        return builder.ToString();
    }

    /// <summary>Index of the first character that is escaped, or -1.</summary>
    private static int IndexOfEscaped(string text, bool escapeBackslash)
    {
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            if (c < 0x80)
            {
                if (c < 0x20 || c == 0x7F || (c == '\\' && escapeBackslash))
                {
                    return i;
                }

                continue;
            }

            if (NeedsCodePointEscape(text, i, out var width))
            {
                return i;
            }

            i += width - 1;
        }

        return -1;
    }

    /// <summary>Appends the character (or surrogate pair) at <paramref name="index"/>, escaped if it must be; returns the index of its last code unit.</summary>
    private static int AppendOne(StringBuilder builder, string text, int index, bool escapeBackslash)
    {
        var c = text[index];
        if (c < 0x80)
        {
            switch (c)
            {
                case '\\' when escapeBackslash:
                    builder.Append(@"\\");
                    break;
                case '\n':
                    builder.Append(@"\n");
                    break;
                case '\r':
                    builder.Append(@"\r");
                    break;
                case '\t':
                    builder.Append(@"\t");
                    break;
                case '\u001b':
                    builder.Append(@"\e");
                    break;
                case < ' ' or '\u007f':
                    builder.Append(@"\x").Append(((int)c).ToString("X2", CultureInfo.InvariantCulture));
                    break;
                default:
                    builder.Append(c);
                    break;
            }

            return index;
        }

        if (NeedsCodePointEscape(text, index, out var width))
        {
            if (KernelNames.IsEscapedByte(c))
            {
                builder.Append(@"\x").Append((c - 0xDC00).ToString("X2", CultureInfo.InvariantCulture));
                return index;
            }

            var codePoint = width == 2 ? char.ConvertToUtf32(c, text[index + 1]) : c;
            builder.Append(@"\u{").Append(codePoint.ToString("X4", CultureInfo.InvariantCulture)).Append('}');
        }
        else
        {
            builder.Append(text, index, width);
        }

        return index + width - 1;
    }

    /// <summary>For a non-ASCII code unit at <paramref name="index"/>: whether its code point is escaped as <c>\u{…}</c>, and how many code units it spans.</summary>
    private static bool NeedsCodePointEscape(string text, int index, out int width)
    {
        var c = text[index];
        width = 1;
        if (char.IsHighSurrogate(c))
        {
            if (index + 1 < text.Length && char.IsLowSurrogate(text[index + 1]))
            {
                width = 2;
                return CharUnicodeInfo.GetUnicodeCategory(char.ConvertToUtf32(c, text[index + 1])) == UnicodeCategory.Format;
            }

            return true;
        }

        if (char.IsLowSurrogate(c))
        {
            return true;
        }

        return c <= '\u009f' || CharUnicodeInfo.GetUnicodeCategory(c) is UnicodeCategory.Format or UnicodeCategory.LineSeparator or UnicodeCategory.ParagraphSeparator;
    }
}
