using Dedup.Core;
using Dedup.Core.Reporting;

namespace Dedup.Cli.Output;

/// <summary>Writes groups as they arrive and the summary at the end, in one output format.</summary>
internal abstract class ReportWriter : IDisposable
{
    public static ReportWriter Create(string format, Stream stream) => format switch
    {
        "json" => new JsonReportWriter(stream),
        "csv" => new CsvReportWriter(stream),
        _ => new TextReportWriter(stream),
    };

    public abstract void WriteGroup(DuplicateGroup group);

    /// <summary>A group of duplicate folders, or a partial overlap (<c>--folders</c>); written before the file groups.</summary>
    public virtual void WriteFolderGroup(DuplicateFolderGroup group)
    {
    }

    /// <summary>The scan's roots with their identities; formats that can be acted on later record them.</summary>
    public virtual void WriteRoots(IReadOnlyList<ScanRoot> roots)
    {
    }

    public abstract void WriteSummary(ScanSummary summary);

    public abstract void Flush();

    public abstract void Dispose();
}
