using System.Globalization;
using System.Text;
using Dedup.Core;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Reports;

namespace Dedup.Cli.Output;

/// <summary>
/// CSV, one row per name: <c>group,size,path,hardlink_of</c> (RFC 4180 quoting). Names are written as the kernel's
/// exact bytes: UTF-8, except that a Linux name that is not valid UTF-8 keeps those bytes (see <see cref="KernelNames"/>),
/// so the file is then not valid UTF-8 but every path in it names the file that was compared.
/// With <c>--folders</c> (<see cref="MarkFolderMode"/>) three columns follow, <c>kind,files,bytes</c> (docs/folders.md):
/// folder groups come first, one row per folder (kind <c>exact</c> or <c>partial</c>, size and hardlink_of empty),
/// a partial overlap's differences one row each (kind <c>onlyInFirst</c>, <c>onlyInSecond</c> or <c>changed</c>, the
/// path relative to the folders), then the file groups numbered on, kind <c>file</c>.
/// </summary>
internal sealed class CsvReportWriter : ReportWriter
{
    private readonly StreamWriter _writer;
    private int _group;

    private readonly Stream _stream;
    private bool _folderMode;
    private bool _started;

    public CsvReportWriter(Stream stream)
    {
        _stream = stream;
        _writer = new StreamWriter(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: true);
    }

    /// <summary>Folders were compared: the header gains <c>kind,files,bytes</c>; called before any row.</summary>
    public void MarkFolderMode()
    {
        if (_started)
        {
            throw new InvalidOperationException("The CSV header is already written.");
        }

        _folderMode = true;
    }

    public override void WriteFolderGroup(DuplicateFolderGroup group)
    {
        Start();
        _group++;
        var kind = group.IsExact ? "exact" : "partial";
        foreach (var folder in group.Folders)
        {
            WriteFolderRow(folder.ToString(), kind, group.Files, group.Bytes);
        }

        foreach (var difference in group.Differences)
        {
            var what = difference.Kind switch
            {
                FolderDifferenceKind.OnlyInFirst => "onlyInFirst",
                FolderDifferenceKind.OnlyInSecond => "onlyInSecond",
                FolderDifferenceKind.Unknown => "unknown",
                _ => "changed",
            };
            WriteFolderRow(difference.RelativePath, what, null, null);
        }
    }

    public override void WriteGroup(DuplicateGroup group)
    {
        Start();
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

    public override void Flush()
    {
        Start(); // a report without a group still has its header
        _writer.Flush();
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _writer.Dispose();
        }
    }

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

        if (_folderMode)
        {
            _writer.Write(",file,,");
        }

        _writer.WriteLine();
    }

    private void WriteFolderRow(string path, string kind, long? files, long? bytes)
    {
        _writer.Write(_group.ToString(CultureInfo.InvariantCulture));
        _writer.Write(",,");
        WriteField(path);
        _writer.Write(",,");
        _writer.Write(kind);
        _writer.Write(',');
        _writer.Write(files?.ToString(CultureInfo.InvariantCulture));
        _writer.Write(',');
        _writer.Write(bytes?.ToString(CultureInfo.InvariantCulture));
        _writer.WriteLine();
    }

    private void Start()
    {
        if (!_started)
        {
            _started = true;
            _writer.WriteLine(_folderMode ? "group,size,path,hardlink_of,kind,files,bytes" : "group,size,path,hardlink_of");
        }
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
