using System.Runtime.CompilerServices;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Tests.EnumerationTests;

/// <summary>
/// A custom file source as a consumer writes one: it knows paths only (here from <see cref="Directory"/>, as a manifest
/// would give them) and lets <see cref="ScannedFile.FromPath"/> read the rest. <paramref name="withoutChangeTime"/> makes
/// each file again with the public constructor and no change time: the sources the library had before FromPath.
/// </summary>
internal sealed class PathListEnumerator(bool withoutChangeTime = false) : IFileEnumerator
{
    public async IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        await Task.Yield();
        foreach (var root in context.Roots)
        {
            foreach (var name in Directory.EnumerateFiles(root.ToString(), "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
            {
                cancellationToken.ThrowIfCancellationRequested();
                ScannedFile file;
                try
                {
                    file = ScannedFile.FromPath(AbsolutePath.Parse(name));
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    context.ReportError(name, ScanErrorKind.IOError, e.Message);
                    continue;
                }

                yield return withoutChangeTime ? new ScannedFile(file.Path, file.Length, file.Identity, file.LinkCount, file.LastWriteTimeUtc) : file;
            }
        }
    }
}
