using System.Reflection;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// The whole-file pipeline knows nothing of media (#12): media composes it through neutral hooks (read observer,
/// content map, compare stage), so no signature in <c>Dedup.Core.Scanning</c> names a <c>Dedup.Core.Media</c> type.
/// </summary>
public sealed class LayeringTests
{
    private const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

    [Fact]
    public void No_scanning_signature_names_a_media_type()
    {
        var scanning = typeof(DuplicateFinder).Assembly.GetTypes().Where(t => t.Namespace == "Dedup.Core.Scanning").ToList();
        Assert.NotEmpty(scanning);
        var offending = new List<string>();
        foreach (var type in scanning)
        {
            var used = new List<Type>();
            used.AddRange(type.GetInterfaces());
            used.AddRange(type.GetFields(All).Select(f => f.FieldType));
            used.AddRange(type.GetProperties(All).Select(p => p.PropertyType));
            foreach (var method in type.GetMethods(All).Cast<MethodBase>().Concat(type.GetConstructors(All)))
            {
                used.AddRange(method.GetParameters().Select(p => p.ParameterType));
                if (method is MethodInfo info)
                {
                    used.Add(info.ReturnType);
                }
            }

            offending.AddRange(used.SelectMany(Flatten).Where(IsMedia).Select(t => $"{type.FullName} uses {t.FullName}"));
        }

        Assert.True(offending.Count == 0, string.Join('\n', offending.Distinct()));
    }

    private static bool IsMedia(Type type) => type.Namespace?.StartsWith("Dedup.Core.Media", StringComparison.Ordinal) ?? false;

    /// <summary>A type and the types inside it (array elements, generic arguments, by-ref targets).</summary>
    private static IEnumerable<Type> Flatten(Type type)
    {
        yield return type;
        if (type.HasElementType)
        {
            foreach (var inner in Flatten(type.GetElementType()!))
            {
                yield return inner;
            }
        }

        if (type.IsGenericType)
        {
            foreach (var inner in type.GetGenericArguments().SelectMany(Flatten))
            {
                yield return inner;
            }
        }
    }
}
