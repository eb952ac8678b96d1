namespace Dedup.Core.Linking;

/// <summary>
/// The base of a linker: what happens to each duplicate. Derive from it (or implement <see cref="ILinker"/>) for a
/// linker of your own; the built-in ones are on <see cref="Linkers"/>. The plan, the executor and the dry run decide
/// from what a linker declares, not from its <see cref="Kind"/>, which only labels it in reports and logs.
/// </summary>
/// <remarks>
/// An abstract class rather than an interface so that members with defaults can be added later without breaking
/// derived linkers on any target framework. A linker of your own is treated conservatively: planned once per name,
/// its bytes verified by the executor before <see cref="Apply"/>, refused across file systems that could show one
/// file twice, and acted on file groups only (not whole folders).
/// </remarks>
public abstract class Linker : ILinker
{
    /// <summary>Creates a linker.</summary>
    protected Linker()
    {
    }

    /// <summary>The label of reports and logs: <see cref="DuplicateActionKind.Custom"/> for a linker of your own.</summary>
    public DuplicateActionKind Kind => Capabilities.Kind;

    /// <inheritdoc/>
    public abstract string Description { get; }

    /// <summary>
    /// The dry run's verb, written before each duplicate's name (such as <c>hard-link</c>); by default the
    /// <see cref="Description"/> followed by a colon.
    /// </summary>
    public virtual string Verb => Description + ":";

    /// <summary>What this linker does, as the planner, executor, prediction and plan text read it.</summary>
    internal virtual LinkerCapabilities Capabilities => LinkerCapabilities.Custom;

    /// <inheritdoc/>
    public virtual string? RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) => null;

    /// <inheritdoc/>
    public abstract void Apply(LinkerContext context);
}
