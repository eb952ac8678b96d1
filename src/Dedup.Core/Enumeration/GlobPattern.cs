namespace Dedup.Core.Enumeration;

/// <summary>
/// A compiled glob: <c>*</c> (any run within one name), <c>**</c> (any run across folders), <c>?</c>,
/// and <c>[a-z]</c> / <c>[!a-z]</c> classes. A pattern without <c>/</c> matches an entry's name; a pattern
/// with <c>/</c> matches its path relative to the scan root. Matching works on spans and never allocates.
/// </summary>
/// <remarks>
/// Ignoring case compares each UTF-16 unit by its invariant upper case (<see cref="char.ToUpperInvariant"/>), as
/// <see cref="StringComparison.OrdinalIgnoreCase"/> does: ASCII and the one-to-one folds beyond it (É/é, Σ/σ) match;
/// folds that change length (ß/SS) and Unicode normalization (é as one code point or e plus an accent) do not.
/// </remarks>
internal sealed class GlobPattern
{
    private readonly string _pattern;

    private GlobPattern(string text, string pattern, bool matchesNameOnly, bool ignoreCase)
    {
        Text = text;
        _pattern = pattern;
        MatchesNameOnly = matchesNameOnly;
        IgnoreCase = ignoreCase;
    }

    public string Text { get; }

    public bool MatchesNameOnly { get; }

    /// <summary>Whether letters match whatever their case (see the remarks).</summary>
    public bool IgnoreCase { get; }

    public static GlobPattern Parse(string text) => Parse(text, ignoreCase: false);

    public static GlobPattern Parse(string text, bool ignoreCase)
    {
        if (Problem(text) is { } problem)
        {
            throw new ArgumentException(problem, nameof(text));
        }

        var normalized = Normalize(text);
        return new GlobPattern(text, normalized, !normalized.Contains('/', StringComparison.Ordinal), ignoreCase);
    }

    /// <summary>Why <paramref name="text"/> is not a glob, or <see langword="null"/> when <see cref="Parse(string, bool)"/> accepts it.</summary>
    public static string? Problem(string text)
    {
        if (string.IsNullOrWhiteSpace(text))
        {
            return "A glob pattern must not be empty.";
        }

        var normalized = Normalize(text);
        if (normalized.Length == 0)
        {
            return $"The glob pattern '{text}' matches nothing.";
        }

        for (var i = 0; i < normalized.Length; i++)
        {
            if (normalized[i] == '[')
            {
                var close = i + 2 <= normalized.Length ? normalized.IndexOf(']', i + 2) : -1;
                if (close < 0)
                {
                    return $"The glob pattern '{text}' has an unclosed '[' at position {i}.";
                }

                i = close;
            }
        }

        return null;
    }

    private static string Normalize(string text) => text.Replace('\\', '/').TrimStart('/');

    /// <summary>Matches a root-relative path such as <c>a/b/c.txt</c>.</summary>
    public bool IsMatch(ReadOnlySpan<char> relativePath)
    {
        if (MatchesNameOnly)
        {
            var slash = relativePath.LastIndexOf('/');
            return Match(_pattern, relativePath[(slash + 1)..], IgnoreCase);
        }

        return Match(_pattern, relativePath, IgnoreCase);
    }

    private static bool Match(ReadOnlySpan<char> pattern, ReadOnlySpan<char> text, bool ignoreCase)
    {
        while (!pattern.IsEmpty)
        {
            var c = pattern[0];
            if (c == '*')
            {
                if (pattern.Length > 1 && pattern[1] == '*')
                {
                    // "**/" may also match zero folders.
                    var rest = pattern[2..];
                    if (rest.StartsWith("/") && Match(rest[1..], text, ignoreCase))
                    {
                        return true;
                    }

                    for (var i = 0; i <= text.Length; i++)
                    {
                        if (Match(rest, text[i..], ignoreCase))
                        {
                            return true;
                        }
                    }

                    return false;
                }

                var tail = pattern[1..];
                for (var i = 0; i <= text.Length; i++)
                {
                    if (Match(tail, text[i..], ignoreCase))
                    {
                        return true;
                    }

                    if (i < text.Length && text[i] == '/')
                    {
                        return false;
                    }
                }

                return false;
            }

            if (text.IsEmpty)
            {
                return false;
            }

            if (c == '?')
            {
                if (text[0] == '/')
                {
                    return false;
                }
            }
            else if (c == '[')
            {
                var close = pattern[2..].IndexOf(']') + 2;
                var set = pattern[1..close];
                if (!MatchClass(set, text[0], ignoreCase))
                {
                    return false;
                }

                pattern = pattern[(close + 1)..];
                text = text[1..];
                continue;
            }
            else if (c != text[0] && !(ignoreCase && char.ToUpperInvariant(c) == char.ToUpperInvariant(text[0])))
            {
                return false;
            }

            pattern = pattern[1..];
            text = text[1..];
        }

        return text.IsEmpty;
    }

    /// <summary>Whether <paramref name="ch"/> is in the class; ignoring case, whether it or its upper or lower case is (<c>[a-c]</c> takes <c>B</c>, <c>[!a-c]</c> refuses it).</summary>
    private static bool MatchClass(ReadOnlySpan<char> set, char ch, bool ignoreCase)
    {
        var negate = set.Length > 0 && (set[0] == '!' || set[0] == '^');
        if (negate)
        {
            set = set[1..];
        }

        var found = InClass(set, ch) || (ignoreCase && (InClass(set, char.ToUpperInvariant(ch)) || InClass(set, char.ToLowerInvariant(ch))));
        return found != negate && ch != '/';
    }

    private static bool InClass(ReadOnlySpan<char> set, char ch)
    {
        for (var i = 0; i < set.Length; i++)
        {
            if (i + 2 < set.Length && set[i + 1] == '-')
            {
                if (ch >= set[i] && ch <= set[i + 2])
                {
                    return true;
                }

                i += 2;
            }
            else if (ch == set[i])
            {
                return true;
            }
        }

        return false;
    }
}
