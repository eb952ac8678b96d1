namespace Dedup.Core.Enumeration;

/// <summary>
/// Finds the regular files a scan considers. The default implementation scans folders in parallel;
/// supply your own (for example, a file list from a database) through
/// <see cref="DuplicateFinderBuilder.UseFileEnumerator(IFileEnumerator)"/>.
/// </summary>
public interface IFileEnumerator
{
    /// <summary>
    /// Enumerates the regular files under <see cref="FileEnumerationContext.Roots"/> that pass the
    /// context's filters. Problems with individual entries are reported through
    /// <see cref="FileEnumerationContext.ReportError"/> and do not end the enumeration.
    /// </summary>
    /// <param name="context">Roots, filters and error reporting for this scan.</param>
    /// <param name="cancellationToken">Cancels the enumeration.</param>
    /// <returns>The files found, in any order.</returns>
    IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, CancellationToken cancellationToken = default);
}
