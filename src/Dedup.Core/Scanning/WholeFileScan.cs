using Dedup.Core.IO;

namespace Dedup.Core.Scanning;

/// <summary>Whole-file mode: each candidate set is compared (<see cref="WholeFileStage"/>) and its groups reported.</summary>
internal sealed class WholeFileScan : ICompareStage
{
    public bool KeepsSingles => false;

    public bool AllowsListingKeys => true;

    public IReadObserver? Observer => null;

    public StageOutcome Unfinished => StageOutcome.None;

    public StageOutcome Run(ScanContext context, List<CandidateSet> sets, ScanOutput output, CancellationToken cancellationToken)
    {
        var stage = new WholeFileStage(context);
        ScanThreads.Required.ForEach(sets, candidate =>
        {
            foreach (var group in stage.Compare(candidate, cancellationToken))
            {
                output.PublishWholeFile(candidate.Size, group);
            }

            context.Compared.Settled(candidate);
            candidate.Release(); // its nodes and paths are garbage now; the published groups have their own
        }, cancellationToken);
        return StageOutcome.None;
    }
}
