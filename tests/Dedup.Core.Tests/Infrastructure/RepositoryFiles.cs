namespace Dedup.Core.Tests.Infrastructure;

/// <summary>The repository the tests were built from (found by its solution file above the test binaries).</summary>
public static class RepositoryFiles
{
    public static string Root { get; } = Find();

    private static string Find()
    {
        for (var folder = new DirectoryInfo(AppContext.BaseDirectory); folder is not null; folder = folder.Parent)
        {
            if (File.Exists(Path.Combine(folder.FullName, "Dedup.Core.sln")))
            {
                return folder.FullName;
            }
        }

        throw new InvalidOperationException("Dedup.Core.sln not found above " + AppContext.BaseDirectory);
    }
}
