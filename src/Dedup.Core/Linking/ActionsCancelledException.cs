using System.Globalization;

namespace Dedup.Core.Linking;

/// <summary>
/// Thrown by <see cref="DuplicateActionPlan.ApplyAsync(IProgress{ApplyProgress}, CancellationToken)"/> and
/// <see cref="DuplicateFolderActionPlan.ApplyAsync(IProgress{ApplyProgress}, CancellationToken)"/> when their token is
/// cancelled before every action was started, as a scan's enumeration throws <see cref="OperationCanceledException"/>.
/// The actions started before stay as they ended (each is complete or rolled back); the rest were not started, and
/// applying a new plan of the same files finishes the work. The partial report says which: <see cref="Report"/> for a
/// file plan, <see cref="FolderReport"/> for a folder plan.
/// </summary>
public sealed class ActionsCancelledException : OperationCanceledException
{
    /// <summary>Creates an exception with a default message and no report.</summary>
    public ActionsCancelledException()
        : this("Applying the plan was cancelled.")
    {
    }

    /// <summary>Creates an exception with a message and no report.</summary>
    /// <param name="message">What happened.</param>
    public ActionsCancelledException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with a message and its cause, and no report.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public ActionsCancelledException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }

    internal ActionsCancelledException(DuplicateActionReport report, CancellationToken cancellationToken)
        : base(MessageOf(report.Done, report.NotStarted.Count), cancellationToken)
    {
        Report = report;
    }

    internal ActionsCancelledException(DuplicateFolderActionReport report, CancellationToken cancellationToken)
        : base(MessageOf(report.Done, report.NotStarted.Count, "folders"), cancellationToken)
    {
        FolderReport = report;
    }

    /// <summary>
    /// What a file plan did before it stopped: the outcome of every action started, in plan order, and the actions not
    /// started in <see cref="DuplicateActionReport.NotStarted"/>. <see langword="null"/> for a folder plan.
    /// </summary>
    public DuplicateActionReport? Report { get; }

    /// <summary>
    /// What a folder plan did before it stopped: the outcome of every folder started (the one in progress stops between
    /// files, its <see cref="DuplicateFolderActionOutcome.NotStarted"/> lists the rest), and the folders not started in
    /// <see cref="DuplicateFolderActionReport.NotStarted"/>. <see langword="null"/> for a file plan.
    /// </summary>
    public DuplicateFolderActionReport? FolderReport { get; }

    private static string MessageOf(int done, int notStarted, string what = "actions") =>
        string.Create(CultureInfo.InvariantCulture, $"Applying the plan was cancelled: {done} {what} done, {notStarted} not started.");
}
