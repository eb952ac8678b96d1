namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// This test assembly's name, for the shared infrastructure's <c>[XunitTestCaseDiscoverer]</c>s: xunit looks the
/// discoverer up in the assembly named there, and a wrong name drops every test of that kind without a word.
/// </summary>
internal static class ThisTestAssembly
{
    public const string Name = "Dedup.Core.Tests";
}
