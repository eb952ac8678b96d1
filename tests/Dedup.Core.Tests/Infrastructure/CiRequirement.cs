using Xunit.Abstractions;
using Xunit.Sdk;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// A missing tool or test mount is a skip on a developer's machine but a failure in CI (the <c>CI</c> variable set,
/// as CI services do): .ci/run installs and mounts them, so there a skip would hide a broken set-up behind a green run.
/// Missing platforms (Linux, Windows, macOS), root or a temp folder's file system stay skips everywhere.
/// </summary>
internal static class CiRequirement
{
    public static bool InCi
    {
        get
        {
            var value = Environment.GetEnvironmentVariable("CI");
            return !string.IsNullOrEmpty(value) && value != "0" && !value.Equals("false", StringComparison.OrdinalIgnoreCase);
        }
    }

    /// <summary>The failure for a requirement CI must provide, or null outside CI (then it is a skip).</summary>
    public static string? FailureFor(string? reason) =>
        reason is not null && InCi ? $"{reason} CI is set, so this is a failure, not a skip: .ci/run must provide it." : null;
}

/// <summary>A fact attribute whose requirement may be unmet in CI: <see cref="CiFailure"/> is then reported as the test's failure.</summary>
internal interface IRequirementFact
{
    string? CiFailure { get; }
}

/// <summary>
/// Discovers facts as usual, except one whose attribute reports a <see cref="IRequirementFact.CiFailure"/>: that one
/// becomes a test case that fails with the message (xunit 2 has no other way for an attribute to fail a test).
/// </summary>
public sealed class RequirementFactDiscoverer : IXunitTestCaseDiscoverer
{
    private readonly IMessageSink _diagnostics;
    private readonly FactDiscoverer _facts;

    public RequirementFactDiscoverer(IMessageSink diagnosticMessageSink)
    {
        _diagnostics = diagnosticMessageSink;
        _facts = new FactDiscoverer(diagnosticMessageSink);
    }

    public IEnumerable<IXunitTestCase> Discover(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo factAttribute)
    {
        ArgumentNullException.ThrowIfNull(discoveryOptions);
        var failure = (factAttribute as IReflectionAttributeInfo)?.Attribute is IRequirementFact fact ? fact.CiFailure : null;
        return failure is null
            ? _facts.Discover(discoveryOptions, testMethod, factAttribute)
            : [new ExecutionErrorTestCase(_diagnostics, discoveryOptions.MethodDisplayOrDefault(), discoveryOptions.MethodDisplayOptionsOrDefault(), testMethod, failure)];
    }
}
