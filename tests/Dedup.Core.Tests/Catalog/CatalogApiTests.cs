using System.Reflection;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// One catalog API (#36 point 9): what <see cref="PostgresCatalog"/> offers beside <see cref="FileCatalog"/>'s overrides
/// is the store's own operations (schema, machines, the fleet view), not a second way to scan.
/// </summary>
public sealed class CatalogApiTests
{
    [Fact]
    public void PostgresCatalog_adds_only_the_stores_own_operations_to_the_FileCatalog_API()
    {
        var own = typeof(PostgresCatalog).GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly)
            .Where(m => !m.IsSpecialName && m.GetBaseDefinition().DeclaringType == typeof(PostgresCatalog))
            .Select(m => m.Name)
            .Order(StringComparer.Ordinal);

        Assert.Equal(["DeleteMachineAsync", "Dispose", "DisposeAsync", "GetFleetMachinesAsync", "GetMachinesAsync", "MigrateAsync", "ReadFleetGroupsAsync"], own);
        Assert.DoesNotContain(typeof(PostgresCatalog).Assembly.GetExportedTypes(), t => t.Name == "CatalogReplaceResult");
    }
}
