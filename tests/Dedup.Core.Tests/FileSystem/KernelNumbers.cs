namespace Dedup.Core.Tests.FileSystem;

/// <summary>
/// Linux's numbers the RootedTree tests expect (x86-64 and arm64 alike), written here rather than taken from
/// <c>Interop.Libc</c>: a wrong constant there must show as a failing test, not as an expectation that agrees with it.
/// </summary>
internal static class KernelNumbers
{
    public const int ENOENT = 2;
    public const int ENOTDIR = 20;
    public const int ELOOP = 40;
    public const int O_NONBLOCK = 0x800;
    public const int O_CLOEXEC = 0x80000;
    public const int O_PATH = 0x200000;
}
