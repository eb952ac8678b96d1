namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// The trees of the protected and reference folder tests (issue #37 point 3), in the library (Linking/ProtectionTests)
/// and the CLI (Acting/ReferenceFolderTests): "delete from B whatever exists in A, never touch A, ignore duplicates
/// inside B" is rmlint's <c>rmlint B // A -k -m</c>.
/// </summary>
public static class ReferenceRecipe
{
    public static readonly byte[] Same = TempTree.RandomBytes(5000, 381);
    public static readonly byte[] Other = TempTree.RandomBytes(6000, 382);

    /// <summary>A/one, A/two and B/copy equal; B/x1 and B/x2 equal. Only B/copy has a copy in A.</summary>
    public static TempTree Files()
    {
        var tree = new TempTree();
        tree.Write("A/one", Same);
        tree.Write("A/two", Same);
        tree.Write("B/copy", Same);
        tree.Write("B/x1", Other);
        tree.Write("B/x2", Other);
        return tree;
    }

    /// <summary>
    /// For folder mode: B/d1 and B/d2 equal folders, each with f (a copy of A/one) and u (in B only). The folder pair
    /// has no folder under A; rmlint deletes both copies of f and keeps both of u.
    /// </summary>
    public static TempTree FolderPairs()
    {
        var tree = new TempTree();
        tree.Write("A/one", Same);
        foreach (var folder in new[] { "B/d1", "B/d2" })
        {
            tree.Write(folder + "/f", Same);
            tree.Write(folder + "/u", Other);
        }

        return tree;
    }

    /// <summary>The files left, relative to the tree's root with '/', in ordinal order.</summary>
    public static List<string> Remaining(TempTree tree) =>
        Directory.EnumerateFiles(tree.Root, "*", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(tree.Root, f).Replace('\\', '/'))
            .Order(StringComparer.Ordinal).ToList();

    /// <summary>Runs rmlint on <paramref name="tree"/> as <c>rmlint [-D] B // A -k -m</c>, then its script; the files it leaves.</summary>
    public static async Task<List<string>> RmlintAsync(TempTree tree, bool folders = false)
    {
        using var work = new TempTree(); // rmlint writes its script and a stamp file where it runs
        var script = work.PathOf("rmlint.sh");
        string[] arguments = ["-o", "sh:" + script, tree.PathOf("B"), "//", tree.PathOf("A"), "-k", "-m"];
        await ProcessRunner.RunAsync("rmlint", folders ? ["-D", .. arguments] : arguments, workingDirectory: work.Root);
        await ProcessRunner.RunAsync("sh", [script, "-d"], workingDirectory: work.Root);
        return Remaining(tree);
    }
}
