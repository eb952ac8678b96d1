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

    /// <summary>Number of distinct names interned so far (diagnostics and memory benchmarks).</summary>
    public static int Count => s_names.Count;
}
