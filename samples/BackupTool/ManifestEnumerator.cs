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
/// encoding. The rest (size, times, owner) is read when the scan runs with <see cref="ScannedFile.FromPath"/>, as the
/// library's own walk reads it: a file changed since the manifest was written is compared as it is now, and a cache or
/// catalog trusts these files as it trusts the walk's. A file replaced since (another inode) is left out with an error.
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
            if (!TryParse(line, out var device, out var inode, out var relative))
            {
                context.ReportError(manifestPath, ScanErrorKind.IOError, $"Line {number} is not 'DEVICE INODE LINKS PATH'; skipped");
                continue;
            }

            if ((!context.IncludeHidden && relative.Split('/').Any(part => part.StartsWith('.'))) || !context.IsFileIncluded(relative))
            {
                continue;
            }

            var path = AbsolutePath.Parse(Path.Join(folder.ToString(), relative));
            ScannedFile file;
            try
            {
                file = ScannedFile.FromPath(path);
            }
            catch (FileNotFoundException)
            {
                context.ReportError(path.ToString(), ScanErrorKind.NotFound, "Listed in the manifest but not in the snapshot");
                continue;
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                context.ReportError(path.ToString(), e is UnauthorizedAccessException ? ScanErrorKind.AccessDenied : ScanErrorKind.IOError, e.Message);
                continue;
            }

            var listed = FileIdentity.FromUnixStat(device, inode);
            if (file.Identity != listed)
            {
                context.ReportError(path.ToString(), ScanErrorKind.Changed, $"Replaced since the manifest was written (listed {listed}, found {file.Identity}); left out");
                continue;
            }

            if (context.IsSizeIncluded(file.Length))
            {
                yield return file;
            }
        }
    }

    /// <summary>The manifest's link count is not read: the file's own is (<see cref="ScannedFile.FromPath"/>).</summary>
    private static bool TryParse(string line, out ulong device, out ulong inode, out string relative)
    {
        var fields = line.Split(' ', 4);
        relative = fields.Length == 4 ? fields[3] : string.Empty;
        inode = 0;
        device = 0;
        return fields.Length == 4 && relative.Length > 0
            && ulong.TryParse(fields[0], NumberStyles.None, CultureInfo.InvariantCulture, out device)
            && ulong.TryParse(fields[1], NumberStyles.None, CultureInfo.InvariantCulture, out inode)
            && int.TryParse(fields[2], NumberStyles.None, CultureInfo.InvariantCulture, out _);
    }
}
