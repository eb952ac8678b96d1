using System.Text;
using Dedup.Core;
using Dedup.Core.Linking;

namespace BackupTool;

/// <summary>
/// The backup tool's own linker: a duplicate in the snapshot is replaced by a small stub that names the copy kept,
/// which the tool's restore step follows. It only decides what to write; the library has already re-checked both
/// files and compared their bytes, and <see cref="LinkerContext.ReplaceWithFile"/> writes the stub under a temporary
/// name and renames it over the duplicate after a last re-check (or leaves the duplicate as it was).
/// </summary>
public sealed class StubLinker : Linker
{
    /// <summary>The first line of every stub.</summary>
    public const string Header = "backup-stub v1";

    /// <inheritdoc />
    public override string Description => "replace with a backup stub";

    /// <inheritdoc />
    public override string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) =>
        duplicate.Length < 64 ? "smaller than a stub; kept as it is" : null;

    /// <inheritdoc />
    public override void Apply(LinkerContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var stub = $"{Header}\nsize {context.Action.Duplicate.Length}\nsee {context.Action.Kept.Path}\n";
        context.ReplaceWithFile(stream => stream.Write(Encoding.UTF8.GetBytes(stub)));
    }

    /// <summary>The kept copy's path a stub names, or <see langword="null"/> when <paramref name="text"/> is not a stub.</summary>
    /// <param name="text">A file's content.</param>
    /// <returns>The path, or <see langword="null"/>.</returns>
    public static string? KeptPathOf(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var lines = text.Split('\n');
        return lines.Length >= 3 && lines[0] == Header && lines[2].StartsWith("see ", StringComparison.Ordinal) ? lines[2][4..] : null;
    }
}
