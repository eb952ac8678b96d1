using System.Runtime.CompilerServices;

namespace Dedup.Cli;

/// <summary>
/// Keeps the youngest GC generation small in the NativeAOT build. Everything a scan allocates lives to its end, so
/// the default gen0 budget (sized from the L3 cache: ~16–28 MiB on the benchmark machine) is memory no collection
/// gives back. The JIT builds cap it with <c>System.GC.Gen0MaxBudget</c> (see the project file), but the .NET 8
/// NativeAOT GC has no such setting, so a background thread collects gen0 once 4 MiB has been allocated since the last
/// collection (after the first 24 MiB), much as the setting would. Peak RSS on the 60,000-file tree: docs/benchmarks.md.
/// </summary>
internal static class Gen0Governor
{
    private const long Budget = 4 << 20;

    // Small scans never allocate this much, and pay nothing: each induced collection costs time (node_modules: a 2 MiB
    // budget from the start took 155 → 184 ms).
    private const long Start = 24 << 20;
    private static long s_allocatedAtLastCollection;
    private static int s_lastCount;

    public static void StartIfNeeded()
    {
        if (RuntimeFeature.IsDynamicCodeSupported)
        {
            return; // JIT or ReadyToRun: the runtime setting applies
        }

        // A thread of its own rather than a timer: timer callbacks run on pool threads, which a scan keeps busy.
        var thread = new Thread(static () =>
        {
            while (true)
            {
                Thread.Sleep(5);
                Tick();
            }
        })
        { IsBackground = true, Name = "gen0 governor" };
        thread.Start();
    }

    private static void Tick()
    {
        var allocated = GC.GetTotalAllocatedBytes(precise: false);
        var count = GC.CollectionCount(0);
        if (count != s_lastCount)
        {
            // The runtime collected on its own; count the budget from there.
            s_lastCount = count;
            s_allocatedAtLastCollection = allocated;
            return;
        }

        if (allocated >= Start && allocated - s_allocatedAtLastCollection >= Budget)
        {
            GC.Collect(0, GCCollectionMode.Forced, blocking: true);
            s_lastCount = GC.CollectionCount(0);
            s_allocatedAtLastCollection = GC.GetTotalAllocatedBytes(precise: false);
        }
    }
}
