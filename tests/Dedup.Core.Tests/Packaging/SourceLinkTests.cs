using System.Reflection.Metadata;
using System.Text;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Packaging;

/// <summary>
/// Source Link: this clone has no web remote, so a release passes the repository address; the library's PDB must then
/// map every source to that host at the built commit (Directory.Build.props, DedupRepositoryUrlForSourceLink).
/// </summary>
public sealed class SourceLinkTests
{
    private static readonly Guid SourceLinkKind = new("CC110556-A091-4D38-9FEC-25AB9A351A6A");

    [LinuxFact]
    public void A_given_repository_address_becomes_the_PDBs_source_link_map()
    {
        using var work = new TempTree();
        string[] args = ["build", Path.Combine(RepositoryFiles.Root, "src", "Dedup.Core"), "-c", "Release", "-f", "net10.0",
            "-p:RepositoryUrl=https://github.com/example/Dedup.Core", "--artifacts-path", work.PathOf("artifacts")];
        var (exit, stdout, stderr) = ProcessRunner.Run("dotnet", args, timeoutSeconds: 600);
        Assert.True(exit == 0, stdout + stderr);

        var pdb = Directory.GetFiles(work.PathOf("artifacts"), "Dedup.Core.pdb", SearchOption.AllDirectories).First(p => p.Contains("/bin/", StringComparison.Ordinal));
        using var provider = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(pdb));
        var reader = provider.GetMetadataReader();
        var map = reader.CustomDebugInformation
            .Select(reader.GetCustomDebugInformation)
            .Where(info => reader.GetGuid(info.Kind) == SourceLinkKind)
            .Select(info => Encoding.UTF8.GetString(reader.GetBlobBytes(info.Value)))
            .Single();

        var commit = ProcessRunner.RunChecked("git", "-C", RepositoryFiles.Root, "rev-parse", "HEAD").Trim();
        Assert.Contains($"https://raw.githubusercontent.com/example/Dedup.Core/{commit}/*", map, StringComparison.Ordinal);
    }
}
