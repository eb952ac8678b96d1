using System.Reflection;
using System.Text;

namespace Dedup.Core.Tests.PublicApi;

/// <summary>
/// Keeps src/Dedup.Core/PublicAPI.Shipped.txt + PublicAPI.Unshipped.txt in step with the assembly's
/// public surface. Microsoft.CodeAnalysis.PublicApiAnalyzers is not served by this project's package
/// registry, so this reflection-based check stands in for it: any public member added, removed or
/// changed without updating the files fails the build's tests, with the exact lines to add or remove.
/// </summary>
public sealed class PublicApiTests
{
    /// <summary>Each shipped assembly and the folder its PublicAPI files are copied to (see the csproj).</summary>
    public static TheoryData<string, string> Assemblies => new()
    {
        { typeof(DuplicateFinder).Assembly.GetName().Name!, "PublicApi" },
        { typeof(DedupServiceCollectionExtensions).Assembly.GetName().Name!, Path.Combine("PublicApi", "Dedup.Core.Extensions.DependencyInjection") },
    };

    [Theory]
    [MemberData(nameof(Assemblies))]
    public void Public_surface_matches_the_PublicAPI_files(string assemblyName, string publicApiFolder)
    {
        var actual = PublicApiLister.List(Assembly.Load(assemblyName)).ToHashSet(StringComparer.Ordinal);
        var folder = Path.Combine(AppContext.BaseDirectory, publicApiFolder);
        var recorded = File.ReadAllLines(Path.Combine(folder, "PublicAPI.Shipped.txt"))
            .Concat(File.ReadAllLines(Path.Combine(folder, "PublicAPI.Unshipped.txt")))
            .Where(l => l.Length > 0 && !l.StartsWith('#'))
            .ToHashSet(StringComparer.Ordinal);

        var missing = actual.Except(recorded).Order(StringComparer.Ordinal).ToList();
        var stale = recorded.Except(actual).Order(StringComparer.Ordinal).ToList();
        var message = new StringBuilder();
        if (missing.Count > 0)
        {
            message.AppendLine("Add to PublicAPI.Unshipped.txt:").AppendLine(string.Join('\n', missing));
        }

        if (stale.Count > 0)
        {
            message.AppendLine("Remove from the PublicAPI files (no longer public):").AppendLine(string.Join('\n', stale));
        }

        Assert.True(missing.Count == 0 && stale.Count == 0, message.ToString());
    }

    [Theory]
    [MemberData(nameof(Assemblies))]
    public void Every_public_type_and_member_has_xml_documentation(string assemblyName, string publicApiFolder)
    {
        _ = publicApiFolder;
        var assembly = Assembly.Load(assemblyName);
        var xmlPath = Path.ChangeExtension(assembly.Location, ".xml");
        Assert.True(File.Exists(xmlPath), $"XML documentation file missing: {xmlPath}");
        var xml = File.ReadAllText(xmlPath);
        var undocumented = assembly.GetExportedTypes()
            .Where(t => !xml.Contains($"name=\"T:{t.FullName!.Replace('+', '.')}\"", StringComparison.Ordinal))
            .Select(t => t.FullName)
            .ToList();
        Assert.True(undocumented.Count == 0, "Undocumented public types: " + string.Join(", ", undocumented));
    }
}

internal static class PublicApiLister
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

    public static IEnumerable<string> List(Assembly assembly)
    {
        foreach (var type in assembly.GetExportedTypes())
        {
            yield return $"{Kind(type)} {Name(type)}";
            foreach (var member in type.GetMembers(Declared))
            {
                var line = Describe(type, member);
                if (line is not null)
                {
                    yield return line;
                }
            }
        }
    }

    private static string Kind(Type type) =>
        type.IsEnum ? "enum" : type.IsInterface ? "interface" : type.IsValueType ? "struct"
        : type.IsAbstract && type.IsSealed ? "static class" : type.IsAbstract ? "abstract class" : type.IsSealed ? "sealed class" : "class";

    private static bool IsVisible(MethodBase? method) => method is not null && (method.IsPublic || method.IsFamily || method.IsFamilyOrAssembly);

    private static string? Describe(Type type, MemberInfo member)
    {
        var prefix = Name(type) + ".";
        switch (member)
        {
            case ConstructorInfo ctor when IsVisible(ctor):
                return $"{Access(ctor)}{prefix}ctor({Parameters(ctor)})";
            case MethodInfo method when IsVisible(method) && !method.IsSpecialName:
                return $"{Access(method)}{(method.IsStatic ? "static " : string.Empty)}{prefix}{method.Name}{Generic(method)}({Parameters(method)}) -> {Name(method.ReturnType)}";
            case MethodInfo op when IsVisible(op) && op.Name.StartsWith("op_", StringComparison.Ordinal):
                return $"static {prefix}{op.Name}({Parameters(op)}) -> {Name(op.ReturnType)}";
            case PropertyInfo property when IsVisible(property.GetMethod) || IsVisible(property.SetMethod):
                var accessors = (IsVisible(property.GetMethod) ? "get;" : string.Empty) + (IsVisible(property.SetMethod) ? (property.SetMethod!.ReturnParameter.GetRequiredCustomModifiers().Any(m => m.Name == "IsExternalInit") ? "init;" : "set;") : string.Empty);
                var isStatic = (property.GetMethod ?? property.SetMethod)!.IsStatic ? "static " : string.Empty;
                return $"{isStatic}{prefix}{property.Name} {{ {accessors} }} -> {Name(property.PropertyType)}";
            case FieldInfo field when field.IsPublic || field.IsFamily:
                if (type.IsEnum)
                {
                    return field.IsStatic ? $"{prefix}{field.Name} = {Convert.ToInt64(field.GetRawConstantValue(), System.Globalization.CultureInfo.InvariantCulture)}" : null;
                }

                return $"{(field.IsLiteral ? "const " : field.IsStatic ? "static " : string.Empty)}{prefix}{field.Name} -> {Name(field.FieldType)}";
            case Type nested when nested.IsNestedPublic:
                return null; // listed as an exported type itself
            default:
                return null;
        }
    }

    private static string Access(MethodBase method) => method.IsFamily || method.IsFamilyOrAssembly ? "protected " : method.IsAbstract ? "abstract " : method.IsVirtual && !method.IsFinal && !method.DeclaringType!.IsInterface ? "virtual " : string.Empty;

    private static string Generic(MethodInfo method) => method.IsGenericMethodDefinition ? "<" + string.Join(", ", method.GetGenericArguments().Select(a => a.Name)) + ">" : string.Empty;

    private static string Parameters(MethodBase method) =>
        string.Join(", ", method.GetParameters().Select(p => $"{(p.IsOut ? "out " : p.ParameterType.IsByRef ? "ref " : string.Empty)}{Name(p.ParameterType)} {p.Name}{(p.HasDefaultValue ? " = " + (p.DefaultValue?.ToString() ?? "null") : string.Empty)}"));

    private static string Name(Type type)
    {
        if (type.IsByRef)
        {
            return Name(type.GetElementType()!);
        }

        if (type.IsArray)
        {
            return Name(type.GetElementType()!) + "[]";
        }

        if (type.IsGenericParameter)
        {
            return type.Name;
        }

        if (type.IsGenericType)
        {
            var definition = type.GetGenericTypeDefinition();
            var baseName = (definition.FullName ?? definition.Name).Split('`')[0].Replace('+', '.');
            return $"{baseName}<{string.Join(", ", type.GetGenericArguments().Select(Name))}>";
        }

        return (type.FullName ?? type.Name).Replace('+', '.');
    }
}
