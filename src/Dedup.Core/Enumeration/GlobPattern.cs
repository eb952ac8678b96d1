namespace Dedup.Core.Enumeration;

/// <summary>
/// A compiled glob: <c>*</c> (any run within one name), <c>**</c> (any run across folders), <c>?</c>,
/// and <c>[a-z]</c> / <c>[!a-z]</c> classes. A pattern without <c>/</c> matches an entry's name; a pattern
/// with <c>/</c> matches its path relative to the scan root. Matching works on spans and never allocates.
/// </summary>
internal sealed class GlobPattern
{
    private readonly string _pattern;

    private GlobPattern(string text, string pattern, bool matchesNameOnly)
    {
        Text = text;
        _pattern = pattern;
        MatchesNameOnly = matchesNameOnly;
    }

    public string Text { get; }

    public bool MatchesNameOnly { get; }

    public static GlobPattern Parse(string text)
    {
        if (Problem(text) is { } problem)
        {
            throw new ArgumentException(problem, nameof(text));
        }

        var normalized = Normalize(text);
        return new GlobPattern(text, normalized, !normalized.Contains('/', StringComparison.Ordinal));
    }

    /// <summary>Why <paramref name="text"/> is not a glob, or <see langword="null"/> when <see cref="Parse"/> accepts it.</summary>
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
            return Match(_pattern, relativePath[(slash + 1)..]);
        }

        return Match(_pattern, relativePath);
    }

    private static bool Match(ReadOnlySpan<char> pattern, ReadOnlySpan<char> text)
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
                    if (rest.StartsWith("/") && Match(rest[1..], text))
                    {
                        return true;
                    }

                    for (var i = 0; i <= text.Length; i++)
                    {
                        if (Match(rest, text[i..]))
                        {
                            return true;
                        }
                    }

                    return false;
                }

                var tail = pattern[1..];
                for (var i = 0; i <= text.Length; i++)
                {
                    if (Match(tail, text[i..]))
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
                if (!MatchClass(set, text[0]))
                {
                    return false;
                }

                pattern = pattern[(close + 1)..];
                text = text[1..];
                continue;
            }
            else if (c != text[0])
            {
                return false;
            }

            pattern = pattern[1..];
            text = text[1..];
        }

        return text.IsEmpty;
    }

    private static bool MatchClass(ReadOnlySpan<char> set, char ch)
    {
        var negate = set.Length > 0 && (set[0] == '!' || set[0] == '^');
        if (negate)
        {
            set = set[1..];
        }

        var found = false;
        for (var i = 0; i < set.Length; i++)
        {
            if (i + 2 < set.Length && set[i + 1] == '-')
            {
                found |= ch >= set[i] && ch <= set[i + 2];
                i += 2;
            }
            else
            {
                found |= ch == set[i];
            }
        }

        return found != negate && ch != '/';
    }
}
