namespace Dedup.Core.Linking;

/// <summary>
/// What happens to each duplicate: the built-in linkers are on <see cref="Linkers"/>, and a linker of your own (a
/// backup tool's "replace with a stub", "record and delete", …) derives from this class: <see cref="Description"/>
/// and <see cref="Apply"/>, optionally <see cref="Verb"/> and <see cref="RefuseAtPlanTime"/>. The plan executor does
/// the safety protocol around it (<c>docs/linking.md</c>): before <see cref="Apply"/> is called both files were
/// re-checked against the scan and their bytes compared; the operations on <see cref="LinkerContext"/> re-check
/// them once more right before they change anything and act on the files that were compared, never on a path.
/// </summary>
/// <remarks>
/// A linker decides only what to do, through <see cref="LinkerContext"/>'s operations (replace with a hard link, a
/// symbolic link, a clone or a file of its own; dedupe; delete; move to the trash), and may refuse with
/// <see cref="LinkerContext.Skip"/>. It cannot skip the checks: they are not its to make. A linker of your own is
/// treated conservatively: planned once per name, its bytes verified by the executor before <see cref="Apply"/>,
/// refused across file systems that could show one file twice, and acted on file groups only (not whole folders).
/// An abstract class rather than an interface so that members with defaults can be added later without breaking
/// derived linkers on any target framework.
/// </remarks>
public abstract class Linker
{
    /// <summary>Creates a linker.</summary>
    protected Linker()
    {
    }

    /// <summary>
    /// The label of reports and logs: <see cref="DuplicateActionKind.Custom"/> for a linker of your own. Override it
    /// only in a wrapper of a built-in linker (a decorator that counts or logs): a built-in kind makes the plan treat
    /// the linker as that built-in, except that the executor still compares the bytes before <see cref="Apply"/> and
    /// no operation is probed for it.
    /// </summary>
    public virtual DuplicateActionKind Kind => Capabilities.Kind;

    /// <summary>A short description for plans and logs, such as <c>hard link</c>.</summary>
    public abstract string Description { get; }

    /// <summary>
    /// The dry run's verb, written before each duplicate's name (such as <c>hard-link</c>); by default the built-in's
    /// verb for a linker whose <see cref="Kind"/> is a built-in one, else the <see cref="Description"/> followed by a colon.
    /// </summary>
    public virtual string Verb => LinkerCapabilities.BuiltInStandIn(this)?.Verb ?? Description + ":";

    /// <summary>What this linker does, as the planner, executor, prediction and plan text read it.</summary>
    internal virtual LinkerCapabilities Capabilities => LinkerCapabilities.Custom;

    /// <summary>
    /// A reason this linker can never act on the pair, known at plan time (such as a hard link across file
    /// systems), or <see langword="null"/> (the default). A refused action is planned, shown in the dry run and skipped.
    /// </summary>
    /// <param name="kept">The file that stays.</param>
    /// <param name="duplicate">The duplicate.</param>
    /// <returns>The reason, or <see langword="null"/>.</returns>
    public virtual string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) => null;

    /// <summary>Acts on one duplicate name, once the executor has re-checked both files and verified their bytes.</summary>
    /// <param name="context">The action and the operations that carry it out safely.</param>
    public abstract void Apply(LinkerContext context);
}
