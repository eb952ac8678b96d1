using System.Reflection;
using System.Text.RegularExpressions;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Architecture;

/// <summary>
/// docs/api.md justifies every public type of the packages (#36 point 9): a public type it does not name is an accident
/// or an undocumented addition, and a type it names that is no longer public is a stale row.
/// </summary>
public sealed partial class ApiDocTests
{
    private static readonly Assembly[] Packages =
    [
        typeof(DuplicateFinder).Assembly,
        typeof(Dedup.Core.Caching.Sqlite.SqliteHashCache).Assembly,
        typeof(Dedup.Core.PostgreSql.PostgresCatalog).Assembly,
    ];

    [Fact]
    public void Every_public_type_is_named_in_api_md()
    {
        var named = NamedTypes();
        var missing = PublicTypeNames().Where(name => !named.Contains(name)).Order(StringComparer.Ordinal).ToList();

        Assert.True(missing.Count == 0, "public types docs/api.md does not name: " + string.Join(", ", missing));
    }

    [Fact]
    public void Every_type_named_in_a_table_row_of_api_md_is_public()
    {
        var types = PublicTypeNames().ToHashSet(StringComparer.Ordinal);
        var stale = FirstColumnNames().Where(name => !types.Contains(name)).Order(StringComparer.Ordinal).ToList();

        Assert.True(stale.Count == 0, "docs/api.md rows name types that are not public: " + string.Join(", ", stale));
    }

    /// <summary>Public type names as docs/api.md writes them: no namespace, generic arity as <c>&lt;T&gt;</c>.</summary>
    private static IEnumerable<string> PublicTypeNames() =>
        Packages.SelectMany(a => a.GetExportedTypes()).Where(t => !t.IsNested).Select(DocName).Distinct();

    private static string DocName(Type type) =>
        type.IsGenericTypeDefinition ? $"{type.Name[..type.Name.IndexOf('`')]}<{string.Join(", ", type.GetGenericArguments().Select(a => a.Name))}>" : type.Name;

    private static HashSet<string> NamedTypes() =>
        Code().Matches(ApiMd()).Select(m => m.Groups[1].Value).ToHashSet(StringComparer.Ordinal);

    /// <summary>The code spans of each table row's first cell (the rows' "type" column).</summary>
    private static IEnumerable<string> FirstColumnNames() =>
        ApiMd().Split('\n')
            .Where(line => line.StartsWith("| `", StringComparison.Ordinal))
            .SelectMany(line => Code().Matches(line.Split('|')[1]).Select(m => m.Groups[1].Value))
            .Select(name => name.Split(' ', '(')[0]);

    private static string ApiMd() => File.ReadAllText(Path.Combine(RepositoryFiles.Root, "docs", "api.md"));

    [GeneratedRegex("`([A-Za-z][A-Za-z0-9]*(?:<[A-Za-z, ]+>)?)`")]
    private static partial Regex Code();
}
