using System.Collections.Concurrent;

namespace Dedup.Core.Paths;

/// <summary>
/// Interns file and folder names for one scan so that equal names share one string: a tree of 100,000 files
/// typically has far fewer distinct names, and interned names let path equality compare references. A table
/// lives as long as the scan that made it (see <see cref="Enumeration.FileEnumerationContext"/>), so a process
/// that scans many trees keeps no names of the trees it has finished with; the paths a scan returns keep
/// their own names alive.
/// </summary>
internal sealed class NameTable
{
    /// <summary>Names up to this length are interned when first seen; longer ones are shared only if already interned.</summary>
    public const int ShortNameLength = 12;

    private readonly ConcurrentDictionary<string, string> _names = new(StringComparer.Ordinal);
#if NET9_0_OR_GREATER
    private readonly ConcurrentDictionary<string, string>.AlternateLookup<ReadOnlySpan<char>> _lookup;

    public NameTable()
    {
        _lookup = _names.GetAlternateLookup<ReadOnlySpan<char>>();
    }
#endif

    /// <summary>Number of distinct names interned so far (diagnostics and memory benchmarks).</summary>
    public int Count => _names.Count;

    public string Intern(string name)
    {
        return _names.GetOrAdd(name, name);
    }

    /// <summary>Interns a name given as characters; allocates only for a name not seen before.</summary>
    public string Intern(ReadOnlySpan<char> name)
    {
#if NET9_0_OR_GREATER
        if (_lookup.TryGetValue(name, out var existing))
        {
            return existing;
        }

        var created = name.ToString();
        return _names.GetOrAdd(created, created);
#else
        return Intern(name.ToString());
#endif
    }

    /// <summary>
    /// A file name: short names (<c>index.js</c>, <c>package.json</c>, <c>README.md</c>) repeat across a tree
    /// and are interned; long names are nearly always unique, and a table entry for each would cost more
    /// (about 50 bytes) than sharing could save, so they are only looked up.
    /// </summary>
    public string InternFileName(ReadOnlySpan<char> name)
    {
        if (name.Length <= ShortNameLength)
        {
            return Intern(name);
        }

#if NET9_0_OR_GREATER
        return _lookup.TryGetValue(name, out var existing) ? existing : name.ToString();
#else
        var text = name.ToString();
        return _names.TryGetValue(text, out var existing) ? existing : text;
#endif
    }
}
