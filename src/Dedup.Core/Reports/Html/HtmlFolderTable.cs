using System.Text.Json;
using Dedup.Core.Paths;

namespace Dedup.Core.Reports.Html;

/// <summary>
/// The report's folders, each written once: a file is its folder's index and its name, and a folder is its parent's
/// index and its name, so 100,000 groups in a few folders do not repeat the folders' paths (the page joins them
/// back). A parent always comes before its children, which lets the page add up wasted bytes in one backward pass.
/// Names are written as <see cref="PathText.Escape"/> shows them, as the text report does (a byte that is not UTF-8
/// as <c>\xHH</c>): the page shows them and builds its commands from them.
/// </summary>
internal sealed class HtmlFolderTable
{
    private readonly Dictionary<AbsolutePath, int> _indexes = [];
    private readonly List<(int Parent, string Name)> _folders = [];

    public int Count => _folders.Count;

    /// <summary>The index of <paramref name="folder"/>, added (with its ancestors) when new.</summary>
    public int IndexOf(AbsolutePath folder)
    {
        if (_indexes.TryGetValue(folder, out var index))
        {
            return index;
        }

        var parent = folder.Parent is { } above ? IndexOf(above) : -1;
        index = _folders.Count;
        _folders.Add((parent, PathText.Escape(folder.Name)));
        _indexes.Add(folder, index);
        return index;
    }

    /// <summary>Writes a path as two values: its folder's index and its escaped name (a root alone: -1 and its name).</summary>
    public void WritePath(Utf8JsonWriter json, AbsolutePath path)
    {
        json.WriteNumberValue(path.Parent is { } folder ? IndexOf(folder) : -1);
        json.WriteStringValue(PathText.Escape(path.Name));
    }

    /// <summary>Writes the table: parent, name, parent, name… in index order.</summary>
    public void Write(Utf8JsonWriter json, string propertyName)
    {
        json.WriteStartArray(propertyName);
        foreach (var (parent, name) in _folders)
        {
            json.WriteNumberValue(parent);
            json.WriteStringValue(name);
        }

        json.WriteEndArray();
    }
}
