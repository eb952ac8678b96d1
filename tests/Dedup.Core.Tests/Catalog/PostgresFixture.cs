using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;
using Xunit.Sdk;

namespace Dedup.Core.Tests.Catalog;

/// <summary>One PostgreSQL cluster for all catalog tests (started once, stopped after the last); a database per test.</summary>
public sealed class PostgresFixture : IDisposable
{
    private readonly Lazy<PostgresCluster> _cluster = new(() => PostgresCluster.Start(), LazyThreadSafetyMode.ExecutionAndPublication);

    internal PostgresCluster Cluster => _cluster.Value;

    /// <summary>A catalog on a new, empty database.</summary>
    public PostgresCatalog NewCatalog(string prefix) => new(Cluster.CreateDatabase(prefix));

    public string NewDatabase(string prefix) => Cluster.CreateDatabase(prefix);

    public void Dispose()
    {
        if (_cluster.IsValueCreated)
        {
            _cluster.Value.Dispose();
        }
    }
}

[CollectionDefinition(Name)]
public sealed class PostgresCollection : ICollectionFixture<PostgresFixture>
{
    public const string Name = "PostgreSQL";
}

/// <summary>
/// A fact that needs PostgreSQL's server binaries: skipped with the reason when they are missing, failed in CI
/// (.ci/run installs Debian's postgresql).
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
[XunitTestCaseDiscoverer("Dedup.Core.Tests.Infrastructure.RequirementFactDiscoverer", "Dedup.Core.Tests")]
public sealed class PostgresFactAttribute : FactAttribute, IRequirementFact
{
    public PostgresFactAttribute()
    {
        string? reason = PostgresCluster.MissingReason();
        // A missing platform stays a skip everywhere; missing binaries are CI's failure.
        CiFailure = OperatingSystem.IsLinux() ? CiRequirement.FailureFor(reason) : null;
        Skip = CiFailure is null ? reason : null;
    }

    public string? CiFailure { get; }
}
