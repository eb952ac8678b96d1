namespace Dedup.Core.Paths;

/// <summary>
/// The order <see cref="Linking.KeepRule.PathOrder"/> keeps by (here, with the paths, so that the HTML report below
/// the linking layer marks the same copy), for files and folders alike: paths without hidden folders
/// first, then folder by folder from the root (the first name where two paths part decides, an ancestor before what
/// lies below it), each name compared by the kernel's bytes (<see cref="KernelNames"/>): first the name without its
/// extension, then the whole name. So an original sorts before the copies named after it: <c>Photos</c> before
/// <c>Photos (copy)</c>, <c>big-a.bin</c> before <c>big-a-copy.bin</c>, <c>proj</c> before <c>proj-copy-final</c>
/// (whole paths compared byte by byte put the copy first, as ' ', '-' and '.' sort before '/' and '.').
/// The order is total: two paths tie only when equal.
/// </summary>
internal static class KeepOrder
{
    private const int StackLimit = 256;

    public static int Compare(AbsolutePath x, AbsolutePath y)
    {
        var hidden = IsHidden(x).CompareTo(IsHidden(y));
        return hidden != 0 ? hidden : ComparePaths(x, y);
    }

    /// <summary>Folder by folder from the root; the shorter path first when one lies inside the other.</summary>
    internal static int ComparePaths(AbsolutePath x, AbsolutePath y)
    {
        AbsolutePath a = x, b = y;
        while (a.Depth > b.Depth)
        {
            a = a.Parent!;
        }

        while (b.Depth > a.Depth)
        {
            b = b.Parent!;
        }

        if (a == b)
        {
            return x.Depth.CompareTo(y.Depth);
        }

        while (a.Parent != b.Parent)
        {
            a = a.Parent!;
            b = b.Parent!;
        }

        return CompareNames(a.Name, b.Name);
    }

    /// <summary>By the name without its extension (a leading dot starts no extension), then by the whole name; both as the kernel's bytes.</summary>
    internal static int CompareNames(string x, string y)
    {
        var xBuffer = x.Length * 3 <= StackLimit ? stackalloc byte[StackLimit] : new byte[KernelNames.MaxByteCount(x.Length)];
        var yBuffer = y.Length * 3 <= StackLimit ? stackalloc byte[StackLimit] : new byte[KernelNames.MaxByteCount(y.Length)];
        if (!KernelNames.TryEncode(x.AsSpan(), xBuffer, out var xLength) || !KernelNames.TryEncode(y.AsSpan(), yBuffer, out var yLength))
        {
            return string.CompareOrdinal(x, y); // not a name the kernel could hold: still a total order
        }

        ReadOnlySpan<byte> xName = xBuffer[..xLength], yName = yBuffer[..yLength];
        var byStem = Stem(xName).SequenceCompareTo(Stem(yName));
        return byStem != 0 ? byStem : xName.SequenceCompareTo(yName);
    }

    internal static bool IsHidden(AbsolutePath path)
    {
        for (var node = path; node is not null; node = node.Parent)
        {
            if (node.Name is ['.', _, ..]) // a dot and at least one more character ("." itself is never a name here)
            {
                return true;
            }
        }

        return false;
    }

    private static ReadOnlySpan<byte> Stem(ReadOnlySpan<byte> name)
    {
        var dot = name.LastIndexOf((byte)'.');
        return dot > 0 ? name[..dot] : name;
    }
}
