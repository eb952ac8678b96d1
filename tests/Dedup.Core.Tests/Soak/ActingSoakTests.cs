using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Xunit.Abstractions;

namespace Dedup.Core.Tests.Soak;

/// <summary>
/// The randomized, model-based soak of every action kind (see <see cref="SoakTrial"/>). CI runs the seeds below;
/// <c>benchmarks/soak/run.sh</c> runs as many as asked (DEDUP_SOAK_TRIALS, DEDUP_SOAK_FIRST) and docs/linking.md
/// records the last large run.
/// </summary>
public sealed class ActingSoakTests(ITestOutputHelper output)
{
    /// <summary>Trials run by default: four of each action kind.</summary>
    private const int DefaultTrials = 36;

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "clone and dedupe trials on a real btrfs")]
    public async Task Every_action_keeps_every_content_under_concurrent_changes()
    {
        var trials = int.TryParse(Environment.GetEnvironmentVariable("DEDUP_SOAK_TRIALS"), out var n) && n > 0 ? n : DefaultTrials;
        var first = int.TryParse(Environment.GetEnvironmentVariable("DEDUP_SOAK_FIRST"), out var f) ? f : 1;
        var failures = new List<string>();
        for (var seed = first; seed < first + trials; seed++)
        {
            try
            {
                var line = await SoakTrial.RunAsync(seed, LinkTree.BtrfsMount);
                if (trials <= DefaultTrials)
                {
                    output.WriteLine(line);
                }
            }
            catch (Exception ex)
            {
                failures.Add(ex.Message + "\n  " + ex.InnerException?.Message);
                output.WriteLine("FAILED " + ex.Message + "\n  " + ex.InnerException);
            }
        }

        output.WriteLine($"soak: {trials} trials from seed {first}, {failures.Count} failed");
        Assert.True(failures.Count == 0, $"{failures.Count} of {trials} trials broke the invariant:\n" + string.Join("\n", failures.Take(5)));
    }
}
