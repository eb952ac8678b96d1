using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Dedup.Core.Linking;

/// <summary>
/// Configures what to do with duplicates: which file of each group stays (<see cref="Keep"/>, in order) and what
/// happens to the others (<see cref="UseLinker"/>). <see cref="Build"/> returns an immutable, reusable planner.
/// </summary>
public sealed class DuplicateActionPlanBuilder
{
    private readonly List<KeepRule> _rules = [];
    private readonly List<string> _protect = [];
    private readonly List<string> _reference = [];
    private Linker? _linker;
    private ILogger _logger = NullLogger.Instance;
    private Journal.ActionJournal? _journal;

    /// <summary>
    /// Adds a rule deciding which file stays; the first rule that prefers one file decides. Without any rule,
    /// <see cref="KeepRule.PathOrder"/> decides; once a rule is added there is no implicit fallback (a group the rules
    /// leave tied is left alone), so add <see cref="KeepRule.PathOrder"/> last to decide every group.
    /// </summary>
    /// <param name="rule">The rule, such as <see cref="KeepRule.Oldest"/>.</param>
    /// <returns>This builder.</returns>
    public DuplicateActionPlanBuilder Keep(KeepRule rule)
    {
        ArgumentNullException.ThrowIfNull(rule);
        _rules.Add(rule);
        return this;
    }

    /// <summary>
    /// Protects folders: a copy under one is never acted on (not linked, not deleted). In a group with a protected copy,
    /// the keep rules choose the kept file among the protected copies, every unprotected copy is acted on against it,
    /// and the other protected copies stay as they are. A file counts as under a folder when any of its names is, by
    /// path or, on Linux, by the folder's identity (a folder named through a symbolic link or a bind mount is the same).
    /// </summary>
    /// <param name="folders">Folders that must exist when the planner is built; a <c>..</c> is resolved as the kernel resolves it.</param>
    /// <returns>This builder.</returns>
    public DuplicateActionPlanBuilder Protect(params string[] folders)
    {
        ArgumentNullException.ThrowIfNull(folders);
        _protect.AddRange(folders);
        return this;
    }

    /// <summary>
    /// Acts only against reference folders, as rmlint's <c>B // A --keep-all-tagged --must-match-tagged</c>: they are
    /// protected (see <see cref="Protect"/>), and a group with no copy under any of them is left alone and listed in
    /// <see cref="DuplicateActionPlan.UnreferencedGroups"/>. So "delete from B whatever exists in A, never touch A,
    /// ignore duplicates inside B" is <c>Reference(A)</c> over a scan of both.
    /// </summary>
    /// <param name="folders">Folders that must exist when the planner is built; a <c>..</c> is resolved as the kernel resolves it.</param>
    /// <returns>This builder.</returns>
    public DuplicateActionPlanBuilder Reference(params string[] folders)
    {
        ArgumentNullException.ThrowIfNull(folders);
        _reference.AddRange(folders);
        return this;
    }

    /// <summary>Sets what happens to each duplicate.</summary>
    /// <param name="linker">A linker from <see cref="Linkers"/>.</param>
    /// <returns>This builder.</returns>
    public DuplicateActionPlanBuilder UseLinker(Linker linker)
    {
        ArgumentNullException.ThrowIfNull(linker);
        _linker = linker;
        return this;
    }

    /// <summary>
    /// Logs what plans and runs do: each plan made (actions, refusals, bytes reclaimable; Information), each refusal known
    /// at plan time (Information: applying logs the same action again as Skipped), each action's outcome when applied
    /// (Done: Information, Skipped: Warning, Failed: Error) with both paths, and each run's summary (Information);
    /// capability probes at Debug. Event ids are stable; see <c>docs/linking.md</c>. Without a logger nothing is logged.
    /// </summary>
    /// <param name="logger">The logger, such as one from <c>ILoggerFactory.CreateLogger("Dedup.Core.Linking")</c>.</param>
    /// <returns>This builder.</returns>
    public DuplicateActionPlanBuilder UseLogger(ILogger logger)
    {
        ArgumentNullException.ThrowIfNull(logger);
        _logger = logger;
        return this;
    }

    /// <summary>
    /// Keeps a write-ahead journal of every run of the plans (file and folder plans): before each step that changes a
    /// name, the journal gets, synced to disk, what undoing it needs (the name, the kept file, the replaced file's
    /// identity, size, mode, owner, times, extended attributes and inode flags, the trash it went to), and after each
    /// action its outcome. <c>dedup undo</c> reads it; see <c>docs/journal.md</c>. An action whose line cannot be
    /// written is not made (it fails, unchanged). Without a journal, applying makes no call for one.
    /// </summary>
    /// <param name="journal">The journal, from <see cref="Journal.ActionJournal.Open"/>; the caller disposes it after the runs.</param>
    /// <returns>This builder.</returns>
    public DuplicateActionPlanBuilder UseJournal(Journal.ActionJournal journal)
    {
        ArgumentNullException.ThrowIfNull(journal);
        _journal = journal;
        return this;
    }

    /// <summary>Validates the configuration and returns the planner.</summary>
    /// <returns>The planner.</returns>
    /// <exception cref="InvalidOperationException">No linker was set.</exception>
    /// <exception cref="ArgumentException">
    /// A keep rule cannot be used, such as <see cref="KeepRule.PreferUnder"/> naming a folder that does not exist, or a
    /// protected or reference folder is missing, a file or out of reach.
    /// </exception>
    /// <exception cref="NotSupportedException">
    /// On Windows, <see cref="Linkers.Dedupe"/> (there is no kernel-verified dedupe there). On macOS, a built-in linker other
    /// than <see cref="Linkers.Delete"/> and <see cref="Linkers.Trash"/> (a custom linker is accepted; its Linux-only
    /// operations skip there). On any other system, every linker.
    /// </exception>
    public DuplicateActionPlanner Build()
    {
        if (_linker is null)
        {
            throw new InvalidOperationException("Set what to do with duplicates with UseLinker(Linkers.…) before Build().");
        }

        // Stryker disable once Block,Statement : thrown off Linux only; PlatformRefusal's tests cover the decision and its messages
        if (PlatformRefusal(_linker, OperatingSystem.IsLinux(), OperatingSystem.IsWindows(), OperatingSystem.IsMacOS()) is { } refusal)
        {
            throw new NotSupportedException(refusal);
        }

        foreach (var rule in _rules)
        {
            if (rule.Validate() is { } problem)
            {
                throw new ArgumentException(problem);
            }
        }

        var protection = Protection.Create(_protect, _reference);
        if (protection.Validate() is { } folderProblem)
        {
            throw new ArgumentException(folderProblem);
        }

        return new DuplicateActionPlanner(_linker, _rules.Count == 0 ? [KeepRule.PathOrder] : _rules.ToArray(), _logger) { Protection = protection, Journal = _journal };
    }

    /// <summary>
    /// Why <paramref name="linker"/> cannot act on the platform described by the flags, or <see langword="null"/>; the
    /// platform is passed in so that every branch runs in the tests on Linux.
    /// </summary>
    internal static string? PlatformRefusal(Linker linker, bool linux, bool windows, bool macOS)
    {
        if (linux)
        {
            return null;
        }

        if (!windows && !macOS)
        {
            return $"Acting on duplicates ({linker.Description}) is implemented for Linux, Windows and macOS only.";
        }

        var capabilities = LinkerCapabilities.Of(linker);
        if (windows && !capabilities.Platforms.HasFlag(LinkerPlatforms.Windows))
        {
            return $"{linker.Kind} ({linker.Description}) is implemented for {Names(capabilities.Platforms)} only: {capabilities.WindowsGap}";
        }

        if (macOS && !capabilities.Platforms.HasFlag(LinkerPlatforms.MacOS))
        {
            return $"{linker.Kind} ({linker.Description}) is implemented for {Names(capabilities.Platforms)} only; on macOS only Linkers.Delete and Linkers.Trash are (clonefile and symbolic links are not implemented).";
        }

        return null;
    }

    private static string Names(LinkerPlatforms platforms) =>
        platforms.HasFlag(LinkerPlatforms.Windows) ? "Linux and Windows" : "Linux";
}
