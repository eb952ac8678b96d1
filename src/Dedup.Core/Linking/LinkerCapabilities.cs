namespace Dedup.Core.Linking;

/// <summary>
/// What a linker does, declared once by each built-in linker and read by the planner, the executor, the prediction and
/// the plan text instead of its kind. <see cref="Custom"/> is what a linker of the user's own gets: the conservative
/// choice for each point.
/// </summary>
internal sealed record LinkerCapabilities
{
    /// <summary>A linker of the user's own: planned once per name, verified by the executor, file groups only, any platform.</summary>
    public static LinkerCapabilities Custom { get; } = new();

    /// <summary>
    /// What <paramref name="linker"/> does: a built-in's declarations; for a linker of the user's own that reports a
    /// built-in kind (a wrapper of a built-in), that built-in's, except the two only the built-in code may claim (that
    /// it compares the bytes itself, and that its operation can be probed); else <see cref="Custom"/>.
    /// </summary>
    public static LinkerCapabilities Of(Linker linker) =>
        BuiltInStandIn(linker) is { } builtIn
            ? builtIn.Capabilities with { VerifiesContentItself = false, Probe = ProbedOperation.None }
            : linker.Capabilities;

    /// <summary>The dry run's verb of <paramref name="linker"/>, escaped for the plan's text.</summary>
    public static string VerbOf(Linker linker) => Paths.PathText.EscapeMessage(linker.Verb);

    /// <summary>
    /// The built-in that a linker of the user's own stands in for by reporting its kind (a wrapper), or
    /// <see langword="null"/> for a built-in itself and for a linker of the <see cref="DuplicateActionKind.Custom"/> kind.
    /// </summary>
    internal static Linker? BuiltInStandIn(Linker linker) =>
        ReferenceEquals(linker.Capabilities, Custom) && linker.Kind != DuplicateActionKind.Custom
            ? Linkers.BuiltIn.FirstOrDefault(l => l.Kind == linker.Kind)
            : null;

    /// <summary>The label of reports and logs (JSON <c>kind</c>); never read for a decision.</summary>
    public DuplicateActionKind Kind { get; init; } = DuplicateActionKind.Custom;

    /// <summary>Acts on the file's shared data once (dedupe), rather than on each of its names.</summary>
    public bool ActsOnData { get; init; }

    /// <summary>Removes the duplicate's name (delete, trash): a folder action then removes the rest of the folder.</summary>
    public bool RemovesName { get; init; }

    /// <summary>
    /// The duplicate's names end up showing the kept file's inode (hard and symbolic links), so owner, group and
    /// permissions must match; <see cref="PlanNote"/> says what the names lose.
    /// </summary>
    public bool SharesKeptMetadata { get; init; }

    /// <summary>Said once under a plan with actions, or <see langword="null"/>.</summary>
    public string? PlanNote { get; init; }

    /// <summary>The operation compares the bytes itself (dedupe: the kernel, under lock), so the executor does not read them first.</summary>
    public bool VerifiesContentItself { get; init; }

    /// <summary>
    /// Works only within one file system (hard link, clone, dedupe; the linker refuses other pairs at plan time). The
    /// others are refused across file systems that could show one file twice, so the only copy is never removed.
    /// </summary>
    public bool NeedsSameDevice { get; init; }

    /// <summary>Whole duplicate folders can be acted on (not for a linker of the user's own: the folder protocol is the built-ins').</summary>
    public bool ActsOnFolders { get; init; }

    /// <summary>Takes symbolic links too (the trash does not: a folder holding links is refused).</summary>
    public bool TakesSymbolicLinks { get; init; } = true;

    /// <summary>The file-system operation the plan probes once per device, and whose shared extents it does not count as reclaimable.</summary>
    public ProbedOperation Probe { get; init; }

    /// <summary>Where the linker works.</summary>
    public LinkerPlatforms Platforms { get; init; } = LinkerPlatforms.All;

    /// <summary>Why it does not work on Windows when <see cref="Platforms"/> leaves Windows out.</summary>
    public string? WindowsGap { get; init; }

    /// <summary>How an action can be undone (#38 records, before acting, what this needs).</summary>
    public LinkerUndo Undo { get; init; }
}

/// <summary>The platforms a linker works on.</summary>
[Flags]
internal enum LinkerPlatforms
{
    /// <summary>Linux.</summary>
    Linux = 1,

    /// <summary>Windows.</summary>
    Windows = 2,

    /// <summary>macOS.</summary>
    MacOS = 4,

    /// <summary>Linux, Windows and macOS.</summary>
    All = Linux | Windows | MacOS,
}

/// <summary>The operation whose support the plan probes once per device.</summary>
internal enum ProbedOperation
{
    /// <summary>Nothing is probed.</summary>
    None,

    /// <summary>FICLONE.</summary>
    Clone,

    /// <summary>FIDEDUPERANGE.</summary>
    Dedupe,
}

/// <summary>How an action of a linker can be undone.</summary>
internal enum LinkerUndo
{
    /// <summary>It cannot (a permanent delete), or it is not known (a linker of the user's own).</summary>
    Irreversible,

    /// <summary>The duplicate's name can be given back a file of its own with the kept file's bytes (links, clones).</summary>
    CopyOfKept,

    /// <summary>The file can be moved back from the trash.</summary>
    FromTrash,

    /// <summary>Nothing visible changed: names, metadata and bytes are as before, only the storage is shared (dedupe).</summary>
    NothingVisible,
}
