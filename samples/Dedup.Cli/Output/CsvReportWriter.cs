using System.Globalization;
using System.Text;
using Dedup.Core;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Cli.Output;

/// <summary>
/// CSV, one row per name: <c>group,size,path,hardlink_of</c> (RFC 4180 quoting). Names are written as the kernel's
/// exact bytes: UTF-8, except that a Linux name that is not valid UTF-8 keeps those bytes (see <see cref="KernelNames"/>),
/// so the file is then not valid UTF-8 but every path in it names the file that was compared.
/// </summary>
internal sealed class CsvReportWriter : ReportWriter
{
    private readonly StreamWriter _writer;
    private int _group;

    private readonly Stream _stream;

    public CsvReportWriter(Stream stream)
    {
        _stream = stream;
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
        var field = value.AsSpan().IndexOfAny(",\"\r\n") < 0 ? value : "\"" + value.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";
        if (KernelNames.HasEscapedBytes(field) && KernelNames.TryGetBytes(field, out var bytes))
        {
            // The writer's UTF-8 encoder would turn those bytes into U+FFFD: write them past it.
            _writer.Flush();
            _stream.Write(bytes);
            return;
        }

        _writer.Write(field);
    }
}
