namespace Dedup.Core.Reports;

/// <summary>
/// A report that cannot be read (<see cref="DuplicateReport.ReadAsync(Stream, CancellationToken)"/>): not JSON, not
/// a duplicate report, or an element that breaks the format. The message names the first bad element, such as
/// <c>groups[3].files[0] has no "inode"</c>.
/// </summary>
public sealed class ReportFormatException : FormatException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">What is wrong, naming the element.</param>
    /// <param name="element">The first bad element (<c>groups[3].files[0]</c>), or <see langword="null"/> when the document as a whole is not a report.</param>
    /// <param name="innerException">The JSON parser's exception, if any.</param>
    public ReportFormatException(string message, string? element, Exception? innerException)
        : base(message, innerException)
    {
        Element = element;
    }

    /// <summary>The first bad element, such as <c>groups[3].files[0]</c>; <see langword="null"/> when the document as a whole is not a report (not JSON, no <c>groups</c> or <c>roots</c>).</summary>
    public string? Element { get; }
}
