using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// A refusal that applies to every file of one file system, such as clone or dedupe on a file system that has neither:
/// the plan still refuses each action (<see cref="DuplicateAction.Refusal"/>), and this says it once.
/// </summary>
public sealed record FileSystemRefusal
{
    /// <summary>The refusal, as each action it refuses carries it.</summary>
    public required string Reason { get; init; }

    /// <summary>The first refused action's path, naming the file system in messages.</summary>
    public required AbsolutePath FirstPath { get; init; }

    /// <summary>The plan's actions it refuses, in plan order.</summary>
    public required IReadOnlyList<DuplicateAction> Actions { get; init; }
}
