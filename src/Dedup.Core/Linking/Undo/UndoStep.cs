using System.Globalization;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Linking.Undo;

/// <summary>One journalled action an <see cref="UndoPlan"/> takes back (or says why it does not).</summary>
public sealed class UndoStep
{
    internal UndoStep(JournalStep entry, JournalRun? run, UndoOutcome? expected, string? note, long bytes)
    {
        Entry = entry;
        Run = run;
        Expected = expected;
        Note = note;
        Bytes = bytes;
    }

    /// <summary>The name the action changed (exactly: a name that is not UTF-8 keeps its bytes, see <see cref="KernelNames"/>).</summary>
    public string Path => Entry.Path;

    /// <summary>The journal's kind of the action: <c>hardLink</c>, <c>symbolicLink</c>, <c>clone</c>, <c>dedupe</c>, <c>replace</c>, <c>delete</c>, <c>trash</c>, <c>removeFolder</c> or <c>removeLink</c>.</summary>
    public string Kind => Entry.Kind;

    /// <summary>The bytes restoring it writes anew (a copy of the content for links, clones and dedupe; 0 otherwise, or when it will not be restored).</summary>
    public long Bytes { get; }

    /// <summary>
    /// Why this step will not restore anything, as found when the plan was made (irreversible, already restored, was
    /// not done, or left alone with the reason); <see langword="null"/> when it is to be restored. Applying inspects again.
    /// </summary>
    public string? Note { get; }

    internal JournalStep Entry { get; }

    internal JournalRun? Run { get; }

    /// <summary>The outcome the plan's inspection expects; <see langword="null"/> for a restore.</summary>
    internal UndoOutcome? Expected { get; }

    /// <inheritdoc />
    public override string ToString() => Note is null
        ? string.Create(CultureInfo.InvariantCulture, $"restore {PathText.Escape(Path)} ({UndoKinds.Describe(Kind)}{(Bytes > 0 ? ", " + ByteCount.Format(Bytes) : string.Empty)})")
        : $"skip {PathText.Escape(Path)} ({UndoKinds.Describe(Kind)}): {Note}";
}
