using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;

namespace Dedup.Core.Scanning;

/// <summary>Makes an enumerator's context from a finder's settings (so Enumeration needs nothing from above it).</summary>
internal static class EnumerationContexts
{
    public static FileEnumerationContext Create(DuplicateFinderOptions options, ScanErrorSink errors)
    {
        var flags = EnumerationFlags.None;
        if (options.IncludeHidden)
        {
            flags |= EnumerationFlags.IncludeHidden;
        }

        if (options.FollowSymbolicLinks)
        {
            flags |= EnumerationFlags.FollowSymbolicLinks;
        }

        if (options.StayOnOneFileSystem)
        {
            flags |= EnumerationFlags.StayOnOneFileSystem;
        }

        return new FileEnumerationContext(
            options.Roots, options.Includes, options.Excludes, flags, options.MinSize, options.MaxSize, options.MaxDegreeOfParallelism, errors);
    }
}
