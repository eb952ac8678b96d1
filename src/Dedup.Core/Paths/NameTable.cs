using System.Collections.Concurrent;

namespace Dedup.Core.Paths;

/// <summary>
/// Interns file and folder names so that equal names share one string: a tree of 100,000 files
/// typically has far fewer distinct names, and interned names let path equality compare references.
/// </summary>
internal static class NameTable
{
    private static readonly ConcurrentDictionary<string, string> s_names = new(StringComparer.Ordinal);
#if NET9_0_OR_GREATER
    private static readonly ConcurrentDictionary<string, string>.AlternateLookup<ReadOnlySpan<char>> s_lookup =
        s_names.GetAlternateLookup<ReadOnlySpan<char>>();
#endif

    public static string Intern(string name)
    {
        return s_names.GetOrAdd(name, name);
    }

    /// <summary>Interns a name given as characters; allocates only for a name not seen before.</summary>
    public static string Intern(ReadOnlySpan<char> name)
    {
#if NET9_0_OR_GREATER
        if (s_lookup.TryGetValue(name, out var existing))
        {
            return existing;
        }

        var created = name.ToString();
        return s_names.GetOrAdd(created, created);
#else
        return Intern(name.ToString());
#endif
    }

    /// <summary>Names up to this length are interned when first seen; longer ones are shared only if already interned.</summary>
    public const int ShortNameLength = 12;

    /// <summary>
    /// A file name: short names (<c>index.js</c>, <c>package.json</c>, <c>README.md</c>) repeat across a tree
    /// and are interned; long names are nearly always unique, and a table entry for each would cost more
    /// (about 50 bytes) than sharing could save, so they are only looked up.
    /// </summary>
    public static string InternFileName(ReadOnlySpan<char> name)
    {
        if (name.Length <= ShortNameLength)
        {
            return Intern(name);
        }

#if NET9_0_OR_GREATER
        return s_lookup.TryGetValue(name, out var existing) ? existing : name.ToString();
#else
        var text = name.ToString();
        return s_names.TryGetValue(text, out var existing) ? existing : text;
#endif
    }

    /// <summary>Number of distinct names interned so far (diagnostics and memory benchmarks).</summary>
    public static int Count => s_names.Count;
}
