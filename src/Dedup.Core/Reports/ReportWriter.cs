using Dedup.Core.Reporting;

namespace Dedup.Core.Reports;

/// <summary>
/// Writes a scan's results in one output format as they arrive: the folder groups (folder mode), then each group,
/// the roots at any point before the summary, then the summary, then <see cref="Flush"/>. Made by a factory such as
/// <see cref="CreateJson(Stream)"/>; a program may derive its own format from it.
/// </summary>
/// <remarks>A writer does not own its stream: disposing it leaves the stream open.</remarks>
public abstract class ReportWriter : IDisposable
{
    /// <summary>For a format of a derived class.</summary>
    protected ReportWriter()
    {
    }

    /// <summary>
    /// The report <c>dedup find --format json</c> writes (docs/usage.md): groups streamed as they are written, then
    /// the folder groups (when folders were compared), the roots and the summary. Its file identities and roots let an
    /// action taken later from the report (<see cref="DuplicateReport.ReadAsync(Stream, CancellationToken)"/>) act
    /// only on the very files that were compared. A name that is not valid UTF-8 is written as its lossy string with
    /// the exact bytes in base64 beside it (<c>pathBytes</c>, <c>linksBytes</c>). The summary holds no counter of what
    /// the run cost, so an unchanged tree gives the same bytes run after run (see <see cref="CreateJson(Stream, bool)"/>).
    /// </summary>
    /// <param name="stream">Where the UTF-8 JSON goes; left open.</param>
    /// <returns>The writer.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="stream"/> is <see langword="null"/>.</exception>
    public static ReportWriter CreateJson(Stream stream) => CreateJson(stream, runStatistics: false);

    /// <summary>
    /// The JSON report of <see cref="CreateJson(Stream)"/>, whose summary also holds, when <paramref name="runStatistics"/>
    /// is <see langword="true"/>, what the run cost: <c>bytesRead</c> and the cache's <c>hits</c>, <c>misses</c>,
    /// <c>pruned</c>, <c>written</c> and <c>warnings</c>. Those vary from run to run of the same tree (the page cache,
    /// the hash cache's state), so such reports are not byte-identical.
    /// </summary>
    /// <param name="stream">Where the UTF-8 JSON goes; left open.</param>
    /// <param name="runStatistics">Whether the summary holds the run's counters.</param>
    /// <returns>The writer.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="stream"/> is <see langword="null"/>.</exception>
    public static ReportWriter CreateJson(Stream stream, bool runStatistics)
    {
        ArgumentNullException.ThrowIfNull(stream);
        return new JsonReportWriter(stream, runStatistics);
    }

    /// <summary>
    /// The HTML report <c>dedup find --format html</c> writes (docs/usage.md): one self-contained page to open in a
    /// browser, that needs no network (its script and style are inline and a Content-Security-Policy allows nothing
    /// else), showing the totals, the wasted bytes by folder as a treemap, the groups largest waste first with the copy
    /// the default keep rule (<see cref="Linking.KeepRule.PathOrder"/>) keeps, the errors, and the <c>dedup delete</c>
    /// command for a group or a selection: the page only shows what to do, it acts on nothing. Names are data, never
    /// markup, shown escaped as the text report shows them (<see cref="Paths.PathText.Escape"/>).
    /// </summary>
    /// <param name="stream">Where the UTF-8 page goes; left open.</param>
    /// <returns>The writer.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="stream"/> is <see langword="null"/>.</exception>
    public static ReportWriter CreateHtml(Stream stream) => CreateHtml(stream, options: null);

    /// <summary>The HTML report of <see cref="CreateHtml(Stream)"/>, which also shows how the scan was asked for.</summary>
    /// <param name="stream">Where the UTF-8 page goes; left open.</param>
    /// <param name="options">How the scan was asked for (such as the command line that ran it), shown with the totals as text; <see langword="null"/> for nothing.</param>
    /// <returns>The writer.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="stream"/> is <see langword="null"/>.</exception>
    public static ReportWriter CreateHtml(Stream stream, string? options)
    {
        ArgumentNullException.ThrowIfNull(stream);
        return new Html.HtmlReportWriter(stream, options);
    }

    /// <summary>Writes one group of duplicate files.</summary>
    /// <param name="group">The group.</param>
    public abstract void WriteGroup(DuplicateGroup group);

    /// <summary>Writes a group of duplicate folders or a partial overlap (folder mode), before the file groups; formats without folders ignore it.</summary>
    /// <param name="group">The folder group.</param>
    public virtual void WriteFolderGroup(DuplicateFolderGroup group)
    {
    }

    /// <summary>Records the scan's roots with their identities, before <see cref="WriteSummary"/>; formats that can be acted on later keep them.</summary>
    /// <param name="roots">The roots (<see cref="DuplicateScan.Roots"/>).</param>
    public virtual void WriteRoots(IReadOnlyList<ScanRoot> roots)
    {
    }

    /// <summary>Writes the summary, which ends the report.</summary>
    /// <param name="summary">The scan's summary.</param>
    public abstract void WriteSummary(ScanSummary summary);

    /// <summary>Writes everything buffered to the stream (and, once the summary is written, the report's last line end).</summary>
    public abstract void Flush();

    /// <summary>Releases the writer (not its stream).</summary>
    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    /// <summary>Releases what the format holds.</summary>
    /// <param name="disposing"><see langword="true"/> from <see cref="Dispose()"/>.</param>
    protected virtual void Dispose(bool disposing)
    {
    }
}
