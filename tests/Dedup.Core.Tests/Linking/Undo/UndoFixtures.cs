using System.Text.Json;
using System.Text.Json.Nodes;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Linking.Undo;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>Real runs with a journal, then undo: the journal the forward action wrote is the one undo reads.</summary>
internal static class UndoFixtures
{
    /// <summary>Scans <paramref name="roots"/> (default: the tree), applies <paramref name="linker"/> with a journal at <paramref name="journal"/>; returns the report.</summary>
    public static async Task<DuplicateActionReport> ActAsync(LinkTree tree, Linker linker, string journal, params string[] roots)
    {
        var groups = await tree.ScanAsync(roots);
        using var opened = ActionJournal.Open(journal);
        var plan = new DuplicateActionPlanBuilder().UseLinker(linker).UseJournal(opened).Build().Plan(groups);
        return await plan.ApplyAsync();
    }

    public static async Task<UndoReport> UndoAsync(string journal, params string[] only)
    {
        var plan = UndoPlan.Create(journal, only.Length == 0 ? null : only);
        return await plan.ApplyAsync();
    }

    /// <summary>Fills the file system of <paramref name="file"/>'s folder until about <paramref name="free"/> bytes are free to a user (root has the reserved blocks besides).</summary>
    public static void FillLeaving(string file, long free)
    {
        var available = new DriveInfo(Path.GetDirectoryName(file)!).AvailableFreeSpace;
        Assert.True(available > free, $"only {available} bytes free");
        Tests.Infrastructure.TempTree.Run("fallocate", "-l", (available - free).ToString(System.Globalization.CultureInfo.InvariantCulture), file);
    }

    /// <summary>The journal's lines as JSON objects, to edit by hand (a tampered or damaged journal).</summary>
    public static List<JsonObject> Lines(string journal) =>
        File.ReadAllLines(journal).Select(l => (JsonObject)JsonNode.Parse(l)!).ToList();

    public static void Write(string journal, IEnumerable<JsonObject> lines) =>
        File.WriteAllLines(journal, lines.Select(l => l.ToJsonString()));

    public static JsonObject Begun(List<JsonObject> lines, int index = 0) =>
        lines.Where(l => (string?)l["status"] == "begun").ElementAt(index);
}
