using Dedup.Core.Reports;

namespace Dedup.Cli.Output;

/// <summary>
/// The writer for <c>--format</c>: JSON and HTML are the library's (a format other programs read back, and a page a library user may want too); text and CSV are the
/// CLI's own, derived from the same <see cref="ReportWriter"/>, since they are views for people and spreadsheets that
/// no library user has asked for and that would only widen the library's surface.
/// </summary>
internal static class ReportWriters
{
    public static ReportWriter Create(string format, Stream stream, bool runStatistics = false, string? commandLine = null) => format switch
    {
        "json" => ReportWriter.CreateJson(stream, runStatistics),
        "html" => ReportWriter.CreateHtml(stream, commandLine),
        "csv" => new CsvReportWriter(stream),
        "paths0" => new PathsReportWriter(stream),
        _ => new TextReportWriter(stream, runStatistics),
    };
}
