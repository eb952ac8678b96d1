using Dedup.Core.Reporting;
using Dedup.Core.Scanning;

namespace Dedup.Core;

/// <summary>
/// One run of a <see cref="DuplicateFinder"/>: an asynchronous stream of <see cref="DuplicateGroup"/>
/// that may be enumerated once, and the <see cref="Summary"/> available when the enumeration ends.
/// </summary>
public sealed class DuplicateScan : IAsyncEnumerable<DuplicateGroup>
{
    private readonly CancellationToken _cancellationToken;
    private readonly ScanState _state;
    private readonly ICompareStage _stage;
    private int _started;

    internal DuplicateScan(DuplicateFinderOptions options, CancellationToken cancellationToken)
    {
        // The one place the mode is chosen: media mode is its own pipeline, composing the whole-file stage.
        _stage = options.MediaMode ? new Media.Pipeline.MediaScan(options) : new WholeFileScan();
        _state = new ScanState(options, _stage.Observer);
        _cancellationToken = cancellationToken;
    }

    /// <summary>Whether the enumeration has ended and <see cref="Summary"/> is available.</summary>
    public bool IsCompleted => _state.Summary is not null;

    /// <summary>The scan's totals and errors.</summary>
    /// <exception cref="InvalidOperationException">The enumeration has not ended yet.</exception>
    public ScanSummary Summary => _state.Summary ?? throw new InvalidOperationException("The summary is available once the scan has been enumerated to the end.");

    /// <summary>
    /// The scanned roots with the identities their folders had when the scan started; empty until the enumeration
    /// has started. Reports that may be acted on later record them (see <see cref="Linking.ReportedDuplicates"/>).
    /// </summary>
    public IReadOnlyList<ScanRoot> Roots => _state.Roots;

    /// <summary>Starts the scan.</summary>
    /// <param name="cancellationToken">Cancels the scan, together with the token given to <see cref="DuplicateFinder.FindAsync"/>.</param>
    /// <returns>The enumerator.</returns>
    /// <exception cref="InvalidOperationException">The scan was already enumerated.</exception>
    public IAsyncEnumerator<DuplicateGroup> GetAsyncEnumerator(CancellationToken cancellationToken = default)
    {
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            throw new InvalidOperationException("A DuplicateScan can be enumerated once; call DuplicateFinder.FindAsync again for a new scan.");
        }

        return RunAsync(cancellationToken).GetAsyncEnumerator(cancellationToken);
    }

    private async IAsyncEnumerable<DuplicateGroup> RunAsync([System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(_cancellationToken, cancellationToken);
        await foreach (var group in DuplicateScanner.ScanAsync(_state, _stage, linked.Token).ConfigureAwait(false))
        {
            yield return group;
        }
    }
}
