using System.Reflection;
using Dedup.Core.IO;
using Mono.Cecil;
using Mono.Cecil.Cil;
using Xunit;

namespace Dedup.Core.Tests.IO;

/// <summary>
/// A file's liveness is its scan's: one <see cref="LiveFiles"/> per scan, created with the scan's context, and no flag
/// on the node. Read from the built assembly: a stage or feature that made a record of its own (or a node that grew
/// its flag back) would no longer drop files where the rest of the scan looks, so the test fails.
/// </summary>
public sealed class LivenessWriterTests
{
    private const string LiveFilesType = "Dedup.Core.IO.LiveFiles";

    [Fact]
    public void Only_the_scan_context_creates_a_record_of_live_files()
    {
        var creators = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var type in ModuleDefinition.ReadModule(typeof(DuplicateFinder).Assembly.Location).GetTypes())
        {
            foreach (var method in type.Methods.Where(m => m.HasBody))
            {
                foreach (var instruction in method.Body.Instructions)
                {
                    if (instruction.OpCode == OpCodes.Newobj && instruction.Operand is MethodReference called
                        && called.DeclaringType.FullName == LiveFilesType
                        && !(type.FullName == "Dedup.Core.Scanning.ScanContext" && method.IsConstructor))
                    {
                        creators.Add($"{type.FullName}.{method.Name}");
                    }
                }
            }
        }

        Assert.True(creators.Count == 0, "LiveFiles created outside the scan context:\n" + string.Join("\n", creators));
    }

    [Fact]
    public void A_node_carries_no_liveness_of_its_own()
    {
        const BindingFlags all = BindingFlags.Instance | BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic;
        var members = typeof(FileNode).GetMembers(all)
            .Where(m => m.Name.Contains("Drop", StringComparison.OrdinalIgnoreCase) || m.Name.Contains("Live", StringComparison.OrdinalIgnoreCase))
            .Select(m => m.Name);
        Assert.Empty(members);
    }
}
