using System.Globalization;
using System.Text;
using Dedup.Core;
using Dedup.Core.Reporting;

namespace Dedup.Cli.Output;

/// <summary>CSV, one row per name: <c>group,size,path,hardlink_of</c> (RFC 4180 quoting).</summary>
internal sealed class CsvReportWriter : ReportWriter
{
    private readonly StreamWriter _writer;
    private int _group;

    public CsvReportWriter(Stream stream)
    {
        _writer = new StreamWriter(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: true);
        _writer.WriteLine("group,size,path,hardlink_of");
    }

    public override void WriteGroup(DuplicateGroup group)
    {
        _group++;
        foreach (var file in group.Files)
        {
            var path = file.Path.ToString();
            WriteRow(group.Size, path, null);
            foreach (var link in file.OtherLinks)
            {
                WriteRow(group.Size, link.ToString(), path);
            }
        }
    }

    public override void WriteSummary(ScanSummary summary)
    {
        // CSV carries rows only; the summary goes to standard error through the exit code and messages.
    }

    public override void Flush() => _writer.Flush();

    public override void Dispose() => _writer.Dispose();

    private void WriteRow(long size, string path, string? linkOf)
    {
        _writer.Write(_group.ToString(CultureInfo.InvariantCulture));
        _writer.Write(',');
        _writer.Write(size.ToString(CultureInfo.InvariantCulture));
        _writer.Write(',');
        WriteField(path);
        _writer.Write(',');
        if (linkOf is not null)
        {
            WriteField(linkOf);
        }

        _writer.WriteLine();
    }

    private void WriteField(string value)
    {
        if (value.AsSpan().IndexOfAny(",\"\r\n") < 0)
        {
            _writer.Write(value);
            return;
        }

        _writer.Write('"');
        _writer.Write(value.Replace("\"", "\"\"", StringComparison.Ordinal));
        _writer.Write('"');
    }
}
