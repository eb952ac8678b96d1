using System.Globalization;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// Takes back what an action journal (the <c>--log</c> of <c>dedup link/delete</c>, format 2, docs/journal.md) records,
/// newest action first: links, clones and dedupe become independent files again with the logged bytes (copied from the
/// content the name shares now, verified byte for byte) and metadata; trashed files go back to their names; removed
/// folders and links are made again. A permanent delete is listed as irreversible. Each step inspects the name first
/// and leaves it alone, with the reason, when it no longer leads to what the journal says; nothing outside the run's
/// scanned roots is touched, and no name is ever overwritten but the one the action made. Implemented for Linux, and
/// for Windows and macOS (links, clones and the system trash; docs/linking.md "Undo" says what each platform restores).
/// </summary>
/// <remarks>
/// Undo is repeatable: a step already restored (by an earlier, perhaps interrupted, undo) is said so and left as it is;
/// a step whose action was never done (an interrupted run) is "was not done".
/// </remarks>
public sealed class UndoPlan
{
    private readonly JournalReader _journal;

    private UndoPlan(string journalPath, JournalReader journal, IReadOnlyList<UndoStep> steps, IReadOnlyList<UndoSpace> space)
    {
        JournalPath = journalPath;
        _journal = journal;
        Steps = steps;
        Space = space;
    }

    /// <summary>The journal the plan was read from.</summary>
    public string JournalPath { get; }

    /// <summary>The steps, newest action first.</summary>
    public IReadOnlyList<UndoStep> Steps { get; }

    /// <summary>What reading the journal found worth saying: a line cut short by a kill, runs logged before format 2 (which cannot be undone).</summary>
    public IReadOnlyList<string> Notes => _journal.Notes;

    /// <summary>The space the restored copies need, per file system, and what is free there.</summary>
    public IReadOnlyList<UndoSpace> Space { get; }

    /// <summary>Whether every file system has the space its copies need.</summary>
    public bool HasEnoughSpace => Space.All(s => s.Fits);

    /// <summary>
    /// Reads <paramref name="journalPath"/> and inspects every step (changing nothing). Throws
    /// <see cref="InvalidDataException"/> naming the line when a line (other than one cut short by a kill) is not a journal line.
    /// </summary>
    /// <param name="journalPath">The journal (a <c>--log</c> file).</param>
    /// <param name="only">Names or folders: only steps whose name is one of them or lies under one; <see langword="null"/> or empty for every step.</param>
    /// <returns>The plan.</returns>
    public static UndoPlan Create(string journalPath, IReadOnlyCollection<string>? only = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(journalPath);
        var journal = JournalReader.Read(journalPath);
        var selected = only is { Count: > 0 } ? only.Select(AbsolutePath.Parse).ToArray() : null;
        var runs = journal.Runs.GroupBy(r => r.Id, StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.Last(), StringComparer.Ordinal);
        var entries = journal.Steps.Reverse().Where(s => selected is null || selected.Any(AbsolutePath.Parse(s.Path).IsUnder)).ToList();
        var steps = new List<UndoStep>(entries.Count);
        var space = new List<UndoSpace>();
        if (UsesPortableEngine)
        {
            using var engine = new PortableUndoEngine(journal, journalPath);
            var needs = new Dictionary<ulong, (string Folder, long Needed, long Available)>();
            foreach (var entry in entries)
            {
                var run = runs.TryGetValue(entry.Run, out var found) ? found : null;
                var (outcome, reason) = engine.Inspect(entry, run);
                var bytes = outcome is null && entry.Copies ? entry.Before.File.Size : 0;
                if (bytes > 0 && PortableUndoEngine.FileSystemOf(entry) is { } fileSystem)
                {
                    var need = needs.TryGetValue(fileSystem.Device, out var known) ? known : (fileSystem.Folder, 0, fileSystem.Available);
                    need.Needed += (bytes + PortableBlock - 1) / PortableBlock * PortableBlock;
                    needs[fileSystem.Device] = need;
                }

                steps.Add(new UndoStep(entry, run, outcome, outcome is null ? null : Describe(outcome.Value, reason), bytes));
            }

            space.AddRange(needs.Values.Select(n => new UndoSpace(n.Folder, n.Needed, n.Available)));
        }
        else if (OperatingSystem.IsLinux())
        {
            using var engine = new UndoEngine(journal, journalPath);
            var needs = new Dictionary<ulong, (string Folder, long Needed, long Available, long Block)>();
            foreach (var entry in entries)
            {
                var run = runs.TryGetValue(entry.Run, out var found) ? found : null;
                var (outcome, reason) = engine.Inspect(entry, run);
                var bytes = outcome is null && entry.Copies ? entry.Before.File.Size : 0;
                if (bytes > 0 && engine.FileSystemOf(entry, run!) is { } fileSystem)
                {
                    var need = needs.TryGetValue(fileSystem.Device, out var known) ? known : (fileSystem.Folder, 0, fileSystem.Available, fileSystem.Block);
                    need.Needed += (bytes + need.Block - 1) / need.Block * need.Block;
                    needs[fileSystem.Device] = need;
                }

                steps.Add(new UndoStep(entry, run, outcome, outcome is null ? null : Describe(outcome.Value, reason), bytes));
            }

            space.AddRange(needs.Values.Select(n => new UndoSpace(n.Folder, n.Needed, n.Available)));
        }
        else
        {
            steps.AddRange(entries.Select(e => new UndoStep(e, runs.TryGetValue(e.Run, out var run) ? run : null, null, null, e.Copies ? e.Before.File.Size : 0)));
        }

        return new UndoPlan(journalPath, journal, steps, space);
    }

    /// <summary>Writes the plan: one line per step (what will be restored, or why not), the notes, and the space each file system needs.</summary>
    /// <param name="writer">Where to write.</param>
    public void WriteTo(TextWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        foreach (var note in Notes)
        {
            writer.WriteLine($"note: {note}");
        }

        foreach (var step in Steps)
        {
            writer.WriteLine(step.ToString());
        }

        foreach (var fileSystem in Space)
        {
            writer.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"space: {ByteCount.Format(fileSystem.Needed)} needed on the file system of {PathText.Escape(fileSystem.Folder)}, {ByteCount.Format(fileSystem.Available)} free{(fileSystem.Fits ? string.Empty : " (not enough)")}"));
        }
    }

    /// <summary>
    /// Restores every step it can, newest first, inspecting each again just before (the plan may be old). Refuses
    /// (throws <see cref="InvalidOperationException"/>, nothing changed) when a file system lacks the space its copies
    /// need, unless <paramref name="partial"/>: then what fits is restored and the rest fails for want of space.
    /// </summary>
    /// <param name="progress">Told each step's outcome as it is known.</param>
    /// <param name="partial">Restore what fits even when not everything does.</param>
    /// <param name="cancellationToken">Stops between steps (a step is never left half done); the steps not reached are not in the report.</param>
    /// <returns>One outcome per step reached.</returns>
    public Task<UndoReport> ApplyAsync(IProgress<UndoStepOutcome>? progress = null, bool partial = false, CancellationToken cancellationToken = default)
    {
        if (!IsSupported)
        {
            throw new PlatformNotSupportedException("undo is implemented for Linux, Windows and macOS");
        }

        if (!partial && SpaceRefusal() is { } refusal)
        {
            throw new InvalidOperationException(refusal);
        }

        return Task.Run(
            () => UsesPortableEngine ? ApplyPortable(progress, cancellationToken)
                : OperatingSystem.IsLinux() ? Apply(progress, cancellationToken)
                : throw new PlatformNotSupportedException(),
            cancellationToken);
    }

    /// <summary>The block a portable copy is counted in (the portable path reads no block size).</summary>
    private const long PortableBlock = 4096;

    /// <summary>A test seam: the portable engine (Windows, macOS) on Linux, for this flow.</summary>
    internal static readonly AsyncLocal<bool> PortableOnLinux = new();

    private static bool IsSupported => OperatingSystem.IsLinux() || OperatingSystem.IsWindows() || OperatingSystem.IsMacOS();

    private static bool UsesPortableEngine => OperatingSystem.IsWindows() || OperatingSystem.IsMacOS() || (OperatingSystem.IsLinux() && PortableOnLinux.Value);

    private UndoReport ApplyPortable(IProgress<UndoStepOutcome>? progress, CancellationToken cancellationToken)
    {
        var outcomes = new List<UndoStepOutcome>(Steps.Count);
        using var engine = new PortableUndoEngine(_journal, JournalPath) { Faults = Faults };
        engine.Lock();
        foreach (var step in Steps)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var (outcome, reason) = engine.Apply(step.Entry, step.Run);
            var result = new UndoStepOutcome(step, outcome, reason);
            outcomes.Add(result);
            progress?.Report(result);
        }

        return new UndoReport(outcomes, []);
    }

    /// <summary>The one line that says which file system lacks space, or <see langword="null"/> when all fit.</summary>
    public string? SpaceRefusal()
    {
        var short_ = Space.FirstOrDefault(s => !s.Fits);
        return short_ is null
            ? null
            : string.Create(CultureInfo.InvariantCulture, $"not enough space to undo: {ByteCount.Format(short_.Needed)} needed on the file system of {PathText.Escape(short_.Folder)}, {ByteCount.Format(short_.Available)} free; nothing was changed (free space, or restore part with --only or --partial)");
    }

    /// <summary>A test seam: called after each <c>undone</c> line is synced, before the name changes.</summary>
    internal Action<string>? Faults { get; set; }

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private UndoReport Apply(IProgress<UndoStepOutcome>? progress, CancellationToken cancellationToken)
    {
        var outcomes = new List<UndoStepOutcome>(Steps.Count);
        using var engine = new UndoEngine(_journal, JournalPath) { Faults = Faults };
        engine.Lock();
        engine.Select(Steps.Select(s => s.Entry));
        try
        {
            foreach (var step in Steps)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var (outcome, reason) = engine.Apply(step.Entry, step.Run);
                var result = new UndoStepOutcome(step, outcome, reason);
                outcomes.Add(result);
                progress?.Report(result);
            }
        }
        finally
        {
            engine.Finish();
        }

        return new UndoReport(outcomes, engine.Notes);
    }

    private static string Describe(UndoOutcome outcome, string? reason) => outcome switch
    {
        UndoOutcome.AlreadyRestored => "already restored",
        UndoOutcome.WasNotDone => "was not done (nothing to undo)",
        UndoOutcome.Irreversible => $"irreversible: {reason}",
        _ => $"left alone: {reason}",
    };
}
