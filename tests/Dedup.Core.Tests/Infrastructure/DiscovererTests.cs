using System.Reflection;
using Xunit.Sdk;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// The infrastructure is compiled into more than one test assembly; a fact attribute whose discoverer names another
/// assembly is not discovered at all, so its tests would vanish from the run instead of failing.
/// </summary>
public sealed class DiscovererTests
{
    [Fact]
    public void Every_custom_fact_names_a_discoverer_of_this_assembly()
    {
        var assembly = typeof(DiscovererTests).Assembly;
        var attributes = assembly.GetTypes()
            .Where(t => typeof(FactAttribute).IsAssignableFrom(t))
            .Select(t => (Type: t, Discoverer: t.GetCustomAttributesData().SingleOrDefault(a => a.AttributeType == typeof(XunitTestCaseDiscovererAttribute))))
            .Where(a => a.Discoverer is not null)
            .ToList();

        Assert.NotEmpty(attributes);
        Assert.All(attributes, a =>
        {
            var typeName = (string)a.Discoverer!.ConstructorArguments[0].Value!;
            var assemblyName = (string)a.Discoverer.ConstructorArguments[1].Value!;
            Assert.True(assemblyName == assembly.GetName().Name, $"{a.Type.Name}'s discoverer is looked up in {assemblyName}, not {assembly.GetName().Name}");
            Assert.NotNull(assembly.GetType(typeName));
        });
    }
}
