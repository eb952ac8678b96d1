using System.Globalization;
using System.Text;
using Dedup.Core;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Reports;

namespace Dedup.Cli.Output;

/// <summary>
/// Human-readable output: one block per group, hard links indented under their file. Paths are shown with
/// <see cref="AbsolutePath.ToDisplayString"/>, so a name holding a newline or an escape sequence stays on its line.
/// No colour or other terminal control is written. The summary line tells what the run cost (bytes read, the cache's
/// counters) only with <paramref name="runStatistics"/>: those vary from run to run of the same tree.
/// </summary>
internal sealed class TextReportWriter(Stream stream, bool runStatistics = false) : ReportWriter
{
    private readonly StreamWriter _writer = new(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: true);

    public override void WriteGroup(DuplicateGroup group)
    {
        _writer.Write(string.Create(CultureInfo.InvariantCulture, $"{group.Files.Count} files of {Format(group.Size)} ({group.Size} bytes each)"));
        _writer.Write(group.Match == ContentMatch.MediaPayload ? " [media payload, tags ignored]" : string.Empty);
        var acrossMachines = !group.Sha256.IsEmpty;
        _writer.WriteLine(acrossMachines ? $" [across machines, SHA-256 {Convert.ToHexStringLower(group.Sha256.Span)}]" : group.VerifiedByBytes ? string.Empty : " [hash match]");
        foreach (var file in group.Files)
        {
            _writer.Write("  ");
            if (acrossMachines)
            {
                // Paths of other machines look like local ones: each carries its machine.
                _writer.Write(PathText.Escape(file.Machine ?? string.Empty));
                _writer.Write(": ");
            }

            _writer.Write(file.Path.ToDisplayString());
            // Across machines most files are matched by SHA-256 only: the ones this machine compared are marked.
            _writer.WriteLine(acrossMachines && !file.MatchedBySha256 ? " [bytes compared]" : string.Empty);
            foreach (var link in file.OtherLinks)
            {
                _writer.Write("    = ");
                _writer.WriteLine(link.ToDisplayString());
            }
        }

        _writer.WriteLine();
    }

    public override void WriteFolderGroup(DuplicateFolderGroup group)
    {
        if (group.IsExact)
        {
            _writer.Write(string.Create(CultureInfo.InvariantCulture, $"{group.Folders.Count} folders of {Format(group.Bytes)} each ({group.Files} files, {group.Bytes} bytes)"));
            if (group.WastedBytes < group.Bytes * (group.Folders.Count - 1))
            {
                // Files hard-linked between the folders (or named elsewhere) are freed by removing none of them.
                _writer.Write(string.Create(CultureInfo.InvariantCulture, $", {Format(group.WastedBytes)} wasted (the rest shares storage through hard links)"));
            }
        }
        else
        {
            _writer.Write(string.Create(CultureInfo.InvariantCulture, $"{group.Folders.Count} folders partly equal: {group.Files} files ({Format(group.Bytes)}) equal, {group.Differences.Count} entries differ"));
        }

        _writer.WriteLine(group.VerifiedByBytes ? string.Empty : " [hash match]");
        foreach (var folder in group.Folders)
        {
            _writer.Write("  ");
            _writer.Write(folder.ToDisplayString());
            _writer.WriteLine("/");
        }

        foreach (var difference in group.Differences)
        {
            _writer.Write(difference.Kind switch
            {
                FolderDifferenceKind.OnlyInFirst => "    only in first:  ",
                FolderDifferenceKind.OnlyInSecond => "    only in second: ",
                FolderDifferenceKind.Unknown => "    unknown:        ",
                _ => "    changed:        ",
            });
            _writer.WriteLine(PathText.Escape(difference.RelativePath));
        }

        _writer.WriteLine();
    }

    public override void WriteSummary(ScanSummary summary)
    {
        var cache = summary.Cache is { } used && runStatistics
            ? string.Create(CultureInfo.InvariantCulture, $"; cache: {used.Hits} hits, {used.Misses} misses, {used.Pruned} pruned")
            : string.Empty;
        if (summary.Folders is { } folders)
        {
            _writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{folders.Groups} folder groups, {folders.CopiedFolders} copied folders ({folders.CopiedFiles} files), {Format(folders.WastedBytes)} wasted; {folders.PartialOverlaps} partial overlaps"));
        }

        _writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{summary.Groups} groups, {summary.DuplicateFiles} duplicate files, {Format(summary.WastedBytes)} wasted; {summary.FilesScanned} files scanned, {(runStatistics ? Format(summary.BytesRead) + " read, " : string.Empty)}{summary.Errors.Count} errors{cache}"));
        if (summary.Catalog is { } catalog)
        {
            // A partial result says so: other machines have not hashed files of sizes this machine's files share.
            foreach (var (machine, files) in catalog.PendingMatches.OrderBy(entry => entry.Key, StringComparer.Ordinal))
            {
                var name = PathText.Escape(machine);
                _writer.WriteLine(string.Create(CultureInfo.InvariantCulture, $"catalog: {files} {(files == 1 ? "file" : "files")} may match files on {name} once {name} scans again"));
            }

            if (catalog.FilesHashedOnRequest > 0)
            {
                _writer.WriteLine(string.Create(CultureInfo.InvariantCulture, $"catalog: hashed {catalog.FilesHashedOnRequest} {(catalog.FilesHashedOnRequest == 1 ? "file" : "files")} other machines asked for"));
            }
        }
    }

    public override void Flush() => _writer.Flush();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _writer.Dispose();
        }
    }

    internal static string Format(long bytes)
    {
        string[] units = ["B", "KiB", "MiB", "GiB", "TiB"];
        double value = bytes;
        var unit = 0;
        while (value >= 1024 && unit < units.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit == 0
            ? string.Create(CultureInfo.InvariantCulture, $"{bytes} B")
            : string.Create(CultureInfo.InvariantCulture, $"{value:0.0} {units[unit]}");
    }
}
