using System.Globalization;
using System.Runtime.CompilerServices;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace BackupTool;

/// <summary>
/// Lists the files of a backup snapshot from its manifest instead of walking the folder. Each manifest line is
/// <c>DEVICE INODE LINKS RELATIVE-PATH</c>, as <c>find SNAPSHOT -type f -printf '%D %i %n %P\n'</c> writes it: the
/// device is <c>stat</c>'s <c>st_dev</c>, which <see cref="FileIdentity.FromUnixStat"/> turns into the library's
/// encoding. Size and modification time are read when the scan runs, so a file changed since the manifest was written
/// is compared as it is now; a file replaced since (another inode) is left out by the scan with an error.
/// </summary>
/// <param name="snapshotFolder">The folder the manifest's paths are relative to (also the scan's root).</param>
/// <param name="manifestPath">The manifest file.</param>
public sealed class ManifestEnumerator(string snapshotFolder, string manifestPath) : IFileEnumerator
{
    /// <inheritdoc />
    public async IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(context);
        var folder = AbsolutePath.Resolve(snapshotFolder); // as the builder resolves the same folder as the root
        var number = 0;
        await foreach (var line in File.ReadLinesAsync(manifestPath, cancellationToken).ConfigureAwait(false))
        {
            number++;
            if (!TryParse(line, out var device, out var inode, out var links, out var relative))
            {
                context.ReportError(manifestPath, ScanErrorKind.IOError, $"Line {number} is not 'DEVICE INODE LINKS PATH'; skipped");
                continue;
            }

            if ((!context.IncludeHidden && relative.Split('/').Any(part => part.StartsWith('.'))) || !context.IsFileIncluded(relative))
            {
                continue;
            }

            var path = AbsolutePath.Parse(Path.Join(folder.ToString(), relative));
            var info = new FileInfo(path.ToString());
            if (!info.Exists)
            {
                context.ReportError(path.ToString(), ScanErrorKind.NotFound, "Listed in the manifest but not in the snapshot");
                continue;
            }

            if (context.IsSizeIncluded(info.Length))
            {
                yield return new ScannedFile(path, info.Length, FileIdentity.FromUnixStat(device, inode), links, info.LastWriteTimeUtc);
            }
        }
    }

    private static bool TryParse(string line, out ulong device, out ulong inode, out int links, out string relative)
    {
        var fields = line.Split(' ', 4);
        relative = fields.Length == 4 ? fields[3] : string.Empty;
        links = 0;
        inode = 0;
        device = 0;
        return fields.Length == 4 && relative.Length > 0
            && ulong.TryParse(fields[0], NumberStyles.None, CultureInfo.InvariantCulture, out device)
            && ulong.TryParse(fields[1], NumberStyles.None, CultureInfo.InvariantCulture, out inode)
            && int.TryParse(fields[2], NumberStyles.None, CultureInfo.InvariantCulture, out links);
    }
}
