namespace Dedup.Core.Tests.Infrastructure;

/// <summary>The settings of a finder the builder made, for tests that drive the scan's parts one by one.</summary>
internal static class FinderOptions
{
    extension(DuplicateFinder finder)
    {
        public DuplicateFinderOptions Options => ((BuiltDuplicateFinder)finder).Options;
    }
}
