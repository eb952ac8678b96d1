using Mono.Cecil;
using Mono.Cecil.Cil;
using Xunit;

namespace Dedup.Core.Tests.IO;

/// <summary>
/// A file's liveness has one writer: the scan context's <c>Drop</c>, which the stages call when a file fails or
/// changed. Read from the built assembly's IL: any other method that writes <c>FileNode.Dropped</c> (its setter, or
/// the node's own drop method) fails the test, so a new stage cannot grow a writer of its own.
/// </summary>
public sealed class LivenessWriterTests
{
    private const string FileNode = "Dedup.Core.IO.FileNode";

    [Fact]
    public void Only_the_scan_context_drops_a_file()
    {
        var writers = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var type in ModuleDefinition.ReadModule(typeof(DuplicateFinder).Assembly.Location).GetTypes())
        {
            foreach (var method in type.Methods.Where(m => m.HasBody))
            {
                foreach (var instruction in method.Body.Instructions)
                {
                    if (instruction.OpCode.FlowControl == FlowControl.Call && instruction.Operand is MethodReference called
                        && called.DeclaringType.FullName == FileNode && called.Name is "set_Dropped" or "MarkDropped"
                        && !IsAllowed(method, called))
                    {
                        writers.Add($"{Outermost(type).FullName}.{method.Name} -> {called.Name}");
                    }
                }
            }
        }

        Assert.True(writers.Count == 0, "FileNode.Dropped written outside ScanContext.Drop:\n" + string.Join("\n", writers));
    }

    /// <summary>The setter from the node's own drop method; that method from the context's <c>Drop</c>.</summary>
    private static bool IsAllowed(MethodDefinition caller, MethodReference called) =>
        (called.Name == "set_Dropped" && caller.DeclaringType.FullName == FileNode && caller.Name == "MarkDropped")
        || (called.Name == "MarkDropped" && caller.DeclaringType.FullName == "Dedup.Core.Scanning.ScanContext" && caller.Name == "Drop");

    private static TypeDefinition Outermost(TypeDefinition type) => type.DeclaringType is { } outer ? Outermost(outer) : type;
}
