using System.Text;
using Dedup.Core;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Reports;

namespace Dedup.Cli.Output;

/// <summary>
/// <c>--format paths0</c>: every name of every duplicate file, each ended by a NUL byte, for <c>xargs -0</c>. A name is
/// written as the kernel's exact bytes (a Latin-1 name stays Latin-1): the text a program reads names the file that
/// was compared. No group boundaries and no summary: those are in the JSON report. With <c>--keep</c>, the command
/// writes only the names the rules would remove (<see cref="WritePath"/>), not whole groups.
/// </summary>
internal sealed class PathsReportWriter(Stream stream) : ReportWriter
{
    public override void WriteGroup(DuplicateGroup group)
    {
        foreach (var file in group.Files)
        {
            WriteFile(file);
        }
    }

    /// <summary>A file's name and its other hard-linked names: removing one name of several frees nothing.</summary>
    public void WriteFile(DuplicateFile file)
    {
        WritePath(file.Path);
        foreach (var link in file.OtherLinks)
        {
            WritePath(link);
        }
    }

    public void WritePath(AbsolutePath path)
    {
        var text = path.ToString();
        stream.Write(KernelNames.TryGetBytes(text, out var bytes) ? bytes : Encoding.UTF8.GetBytes(text));
        stream.WriteByte(0);
    }

    public override void WriteSummary(ScanSummary summary)
    {
        // Paths only: the totals are in the text and JSON reports.
    }

    public override void Flush() => stream.Flush();
}
