using System.Runtime.InteropServices;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Cli.Tests;

/// <summary>
/// The NativeAOT CLI raises its soft open-file limit to the hard one at start (the JIT runtime does so for its apps, a
/// NativeAOT app does not; checked by hand with `strace -e prlimit64` on the published binary). The test host runs
/// on the JIT runtime, whose soft limit is already raised: the test lowers it by one first, then puts it back.
/// </summary>
public sealed unsafe class OpenFileLimitTests
{
    private const int RlimitNofile = 7;

    [LinuxFact]
    public void The_soft_open_file_limit_is_raised_to_the_hard_one()
    {
        RLimit before;
        Assert.Equal(0, GetRLimit(RlimitNofile, &before));
        var lowered = before with { Current = before.Maximum - 1 };
        Assert.Equal(0, SetRLimit(RlimitNofile, &lowered));
        try
        {
            Dedup.Cli.OpenFileLimit.Raise();

            RLimit after;
            Assert.Equal(0, GetRLimit(RlimitNofile, &after));
            Assert.Equal((before.Maximum, before.Maximum), (after.Current, after.Maximum));
        }
        finally
        {
            _ = SetRLimit(RlimitNofile, &before);
        }
    }

    [DllImport("libc", EntryPoint = "getrlimit")]
    private static extern int GetRLimit(int resource, RLimit* limit);

    [DllImport("libc", EntryPoint = "setrlimit")]
    private static extern int SetRLimit(int resource, RLimit* limit);

    [StructLayout(LayoutKind.Sequential)]
    private record struct RLimit(ulong Current, ulong Maximum);
}
