using System.IO.Pipes;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Operations;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="InodeFlags.Copy"/>, which gives a clone its duplicate's <c>chattr</c> flags, on real files: what is carried,
/// what is kept, and each refusal reported as its errno (the clone is then rolled back), not as success.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed unsafe class InodeFlagsTests
{
    [LinuxFact(Tool = "chattr", TempFileSystem = "ext4")]
    public void The_carried_flags_are_set_and_cleared_and_the_others_kept()
    {
        using var tree = new TempTree();
        var from = tree.Write("from.bin", "a");
        var to = tree.Write("to.bin", "b");
        TempTree.Run("chattr", "+d", "+A", "+S", from);
        TempTree.Run("chattr", "+c", to); // carried, and the source lacks it
        using var source = File.OpenHandle(from);
        using var target = File.OpenHandle(to, FileMode.Open, FileAccess.ReadWrite);
        var before = FlagsOf(target);

        Assert.Equal(0, InodeFlags.Copy(Fd(source), Fd(target)));

        var after = FlagsOf(target);
        Assert.Equal(InodeFlags.NoDump | InodeFlags.NoAtime | InodeFlags.Sync, after & InodeFlags.Carried);
        Assert.Equal(before & ~InodeFlags.Carried, after & ~InodeFlags.Carried);
        Assert.Equal(FlagsOf(source) & InodeFlags.Carried, after & InodeFlags.Carried);
    }

    [LinuxFact(Tool = "chattr", TempFileSystem = "ext4")]
    public void A_file_system_refusing_a_carried_flag_is_an_error()
    {
        // tmpfs keeps d and A but refuses S (EOPNOTSUPP): the clone must not pass for one with the duplicate's flags.
        using var tree = new TempTree();
        using var shm = new TempTree("/dev/shm");
        var from = tree.Write("from.bin", "a");
        var to = shm.Write("to.bin", "b");
        TempTree.Run("chattr", "+S", from);
        using var source = File.OpenHandle(from);
        using var target = File.OpenHandle(to, FileMode.Open, FileAccess.ReadWrite);

        Assert.Equal(Libc.EOPNOTSUPP, InodeFlags.Copy(Fd(source), Fd(target)));
        Assert.Equal(0, FlagsOf(target) & InodeFlags.Sync);
    }

    [LinuxFact(Tool = "chattr", TempFileSystem = "ext4")]
    public void A_target_without_flags_fails_only_when_there_is_something_to_carry()
    {
        using var tree = new TempTree();
        var plain = tree.Write("plain.bin", "a");
        var flagged = tree.Write("flagged.bin", "b");
        TempTree.Run("chattr", "+d", flagged);
        using var pipe = new AnonymousPipeServerStream(PipeDirection.Out); // FS_IOC_GETFLAGS: ENOTTY
        var pipeFd = (int)pipe.SafePipeHandle.DangerousGetHandle();
        using var plainHandle = File.OpenHandle(plain);
        using var flaggedHandle = File.OpenHandle(flagged);

        Assert.Equal(0, InodeFlags.Copy(Fd(plainHandle), pipeFd));
        Assert.Equal(Libc.ENOTTY, InodeFlags.Copy(Fd(flaggedHandle), pipeFd));
    }

    [LinuxFact]
    public void A_source_without_flags_has_nothing_to_carry_but_a_bad_descriptor_is_an_error()
    {
        using var tree = new TempTree();
        var to = tree.Write("to.bin", "b");
        using var target = File.OpenHandle(to, FileMode.Open, FileAccess.ReadWrite);
        using var pipe = new AnonymousPipeServerStream(PipeDirection.Out);

        Assert.Equal(0, InodeFlags.Copy((int)pipe.SafePipeHandle.DangerousGetHandle(), Fd(target)));
        Assert.Equal(9, InodeFlags.Copy(-1, Fd(target))); // EBADF
    }

    private static int Fd(SafeFileHandle handle) => (int)handle.DangerousGetHandle();

    private static int FlagsOf(SafeFileHandle handle)
    {
        int flags;
        Assert.Equal(0, Libc.Ioctl(Fd(handle), Libc.FS_IOC_GETFLAGS, (nint)(&flags)));
        return flags;
    }
}
