namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Fault-injection seam for tests (set <see cref="DuplicateActionPlan.Faults"/>): callbacks invoked at the
/// protocol's critical points. An exception thrown from a callback is handled like an I/O failure at that point.
/// </summary>
internal sealed class LinkerFaults
{
    /// <summary>Called after the replacement exists under its temporary name, before it is renamed over the duplicate: (temporary path, duplicate path).</summary>
    public Action<string, string>? BeforeRename { get; init; }

    /// <summary>
    /// Linux: called after the last re-check, right before the rename over the duplicate, the unlink, the move into the
    /// trash or FIDEDUPERANGE: (duplicate path). Nothing is checked after it, so it shows what a swap of a folder on the
    /// duplicate's path could still redirect.
    /// </summary>
    public Action<string>? AfterLastCheck { get; init; }

    /// <summary>Called after the trash info file is written, before the duplicate is moved: (info path, duplicate path).</summary>
    public Action<string, string>? BeforeTrashMove { get; init; }

    /// <summary>Called after the content was verified, before a permanent delete: (duplicate path).</summary>
    public Action<string>? BeforeDelete { get; init; }

    /// <summary>Folder actions (Linux): called after both folders were listed again, before any pair's bytes are compared: (the folder acted on).</summary>
    public Action<string>? BeforeFolderVerify { get; init; }

    /// <summary>Windows and macOS: called after the content was verified, before the last re-check and the move to the Recycle Bin or Trash: (duplicate path).</summary>
    public Action<string>? BeforeSystemTrashMove { get; init; }
}

/// <summary>Ends one action early with a status and reason; the executor turns it into an outcome.</summary>
internal sealed class ActionStoppedException : Exception
{
    public ActionStoppedException(DuplicateActionStatus status, string reason)
        : base(reason)
    {
        Status = status;
    }

    public ActionStoppedException()
    {
    }

    public ActionStoppedException(string message)
        : base(message)
    {
    }

    public ActionStoppedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public DuplicateActionStatus Status { get; } = DuplicateActionStatus.Failed;

    public static ActionStoppedException Skip(string reason) => new(DuplicateActionStatus.Skipped, reason);

    public static ActionStoppedException Fail(string reason) => new(DuplicateActionStatus.Failed, reason);
}
