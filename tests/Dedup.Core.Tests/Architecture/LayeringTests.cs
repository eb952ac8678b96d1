using Mono.Cecil;

namespace Dedup.Core.Tests.Architecture;

/// <summary>
/// The library's folders are layers (docs/architecture.md): each references only the layers below it, so a scan's data
/// flows one way and a feature can be added in its own folder. Read from the built assembly's IL (signatures, fields,
/// locals and every member an instruction names, compiler-generated types counted as their declaring type), not from
/// <c>using</c> lines, which miss the root namespace and fully qualified names.
/// </summary>
public sealed class LayeringTests
{
    /// <summary>Lowest first. "Model" is the root namespace's results and options; "API" its composition types.</summary>
    private static readonly string[] Layers =
    [
        "Compat", "Interop", "Pooling", "Paths", "FileSystem", "Reporting", "Diagnostics", "Topology", "Enumeration", "Comparison",
        "Model", "IO", "Scanning", "Caching", "Catalog", "Media", "Folders", "Reports", "Linking", "API",
    ];

    private static readonly Dictionary<string, string> RootLayers = new(StringComparer.Ordinal)
    {
        ["DuplicateFinderBuilder"] = "API",
        ["DuplicateFinderBuilderExtensions"] = "API",
        ["DuplicateFinder"] = "API",
        ["BuiltDuplicateFinder"] = "API",
        ["DuplicateScan"] = "API",
        ["ScanComposition"] = "API", // composes a scan from its stage and features: above all of them
        ["ScanStores"] = "API", // the hash cache and the file catalog a finder hands to ScanComposition
        ["Utf8Text"] = "Compat", // Compat/Utf8Text.cs keeps the root namespace, as the polyfills do
    };

    /// <summary>
    /// Upward references the code has today, each with what removes it (issue #35's steps). A new one fails the test;
    /// so does one listed here that is gone, so the list only shrinks.
    /// </summary>
    private static readonly Dictionary<(string From, string To), string> KnownUpward = new()
    {
    };

    [Fact]
    public void No_layer_references_a_layer_above_it_but_the_known_ones()
    {
        var problems = Edges()
            .Where(e => Rank(e.Key.From) < Rank(e.Key.To) && !KnownUpward.ContainsKey(e.Key))
            .Select(e => $"{e.Key.From} -> {e.Key.To} (upward), e.g. {string.Join(", ", e.Value.Order(StringComparer.Ordinal).Take(5))}")
            .ToList();

        Assert.True(problems.Count == 0, "New upward references between layers:\n" + string.Join("\n", problems));
    }

    [Fact]
    public void Every_known_upward_reference_still_exists()
    {
        var edges = Edges();
        var gone = KnownUpward.Keys.Where(k => !edges.ContainsKey(k)).Select(k => $"{k.From} -> {k.To}").ToList();

        Assert.True(gone.Count == 0, "Remove these from KnownUpward (no longer referenced):\n" + string.Join("\n", gone));
        Assert.All(KnownUpward.Keys, k => Assert.True(Rank(k.From) < Rank(k.To), $"{k.From} -> {k.To} is not upward"));
    }

    [Fact]
    public void Every_namespace_of_the_library_is_a_layer()
    {
        var unknown = Module().GetTypes()
            .Select(t => LayerOf(t))
            .OfType<string>()
            .Where(l => Array.IndexOf(Layers, l) < 0)
            .Distinct(StringComparer.Ordinal)
            .ToList();

        Assert.True(unknown.Count == 0, "Folders missing from Layers (and docs/architecture.md): " + string.Join(", ", unknown));
    }

    [Fact]
    public void References_made_only_inside_method_bodies_are_found()
    {
        // Fixture types below, in a namespace of their own: Caller names Callee and Item only in a method body (a call,
        // a generic argument of a local), Holder only through a field of an array type.
        var edges = Edges(ModuleDefinition.ReadModule(typeof(LayeringTests).Assembly.Location), typeof(LayeringFixture.Lower.Callee).Namespace![..^".Lower".Length]);

        Assert.True(edges.TryGetValue(("Upper", "Lower"), out var examples), "no Upper -> Lower edge");
        Assert.Equal(["Caller -> Callee", "Caller -> Item", "Holder -> Item"], examples.Order(StringComparer.Ordinal));
        Assert.False(edges.ContainsKey(("Lower", "Upper")));
    }

    private static int Rank(string layer) => Array.IndexOf(Layers, layer);

    private const string Root = "Dedup.Core";

    private static ModuleDefinition Module() => ModuleDefinition.ReadModule(typeof(DuplicateFinder).Assembly.Location);

    /// <summary>The layer of a type of the library, or null for another assembly's or a compiler's own type.</summary>
    private static string? LayerOf(TypeReference type, string root = Root)
    {
        type = Outermost(type);
        if (type.Namespace == root)
        {
            return RootLayers.TryGetValue(type.Name, out var layer) ? layer : "Model";
        }

        return type.Namespace.StartsWith(root + ".", StringComparison.Ordinal) ? type.Namespace[(root.Length + 1)..].Split('.')[0] : null;
    }

    /// <summary>Every reference between two layers, with up to a few "type -> type" examples.</summary>
    private static Dictionary<(string From, string To), HashSet<string>> Edges() => Edges(Module(), Root);

    private static Dictionary<(string From, string To), HashSet<string>> Edges(ModuleDefinition module, string root)
    {
        var edges = new Dictionary<(string, string), HashSet<string>>();

        void Add(TypeDefinition from, TypeReference? to)
        {
            switch (to)
            {
                case null or GenericParameter:
                    return;
                case GenericInstanceType generic:
                    Add(from, generic.ElementType);
                    foreach (var argument in generic.GenericArguments)
                    {
                        Add(from, argument);
                    }

                    return;
                case TypeSpecification specification: // arrays, pointers, by-ref
                    Add(from, specification.ElementType);
                    return;
            }

            if (to.Scope is AssemblyNameReference || LayerOf(from, root) is not { } source || LayerOf(to, root) is not { } target || source == target)
            {
                return;
            }

            if (!edges.TryGetValue((source, target), out var examples))
            {
                edges[(source, target)] = examples = [];
            }

            examples.Add($"{Outermost(from).Name} -> {Outermost(to).Name}");
        }

        foreach (var type in module.GetTypes())
        {
            Add(type, type.BaseType);
            foreach (var implemented in type.Interfaces)
            {
                Add(type, implemented.InterfaceType);
            }

            foreach (var field in type.Fields)
            {
                Add(type, field.FieldType);
            }

            foreach (var method in type.Methods)
            {
                Add(type, method.ReturnType);
                foreach (var parameter in method.Parameters)
                {
                    Add(type, parameter.ParameterType);
                }

                if (!method.HasBody)
                {
                    continue;
                }

                foreach (var local in method.Body.Variables)
                {
                    Add(type, local.VariableType);
                }

                foreach (var instruction in method.Body.Instructions)
                {
                    switch (instruction.Operand)
                    {
                        case TypeReference referenced:
                            Add(type, referenced);
                            break;
                        case MemberReference member:
                            Add(type, member.DeclaringType);
                            break;
                    }
                }
            }
        }

        return edges;
    }

    private static TypeReference Outermost(TypeReference type)
    {
        while (type.IsNested)
        {
            type = type.DeclaringType;
        }

        return type;
    }
}

