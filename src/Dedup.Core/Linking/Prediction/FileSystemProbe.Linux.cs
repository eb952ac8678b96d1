using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Operations;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Prediction;

/// <summary>What a capability probe found out.</summary>
internal enum ProbeOutcome
{
    /// <summary>The file system did the operation on the probe file.</summary>
    Supported,

    /// <summary>The file system lacks the operation altogether (EOPNOTSUPP, ENOTTY, ENOSYS): every action of this kind on it is refused.</summary>
    Unsupported,

    /// <summary>The probe could not tell (no O_TMPFILE, no permission, a file-specific errno, …): decided at apply time.</summary>
    Unknown,
}

/// <summary>A probe's answer: the outcome, and the refusal (unsupported) or the reason it could not tell (unknown).</summary>
internal readonly record struct ProbeResult(ProbeOutcome Outcome, string Detail);

/// <summary>
/// Asks a file system whether it clones (FICLONE) or dedupes (FIDEDUPERANGE), without changing anything visible: the
/// operation is tried from the kept file into an <c>O_TMPFILE</c> file in the duplicate's folder, an unnamed file that
/// is gone when closed. The kept file is only opened for reading (the kernel never writes a clone's or dedupe's
/// source); no name is created, linked, renamed or removed.
/// </summary>
/// <remarks>
/// Only "the file system lacks the operation" (EOPNOTSUPP, ENOTTY, ENOSYS: ext4, tmpfs, …) is a refusal; it holds for
/// every file of the file system, so one probe per device answers for the plan. Any other answer (EINVAL for one
/// file's layout, EACCES, ENOSPC, no O_TMPFILE) is unknown, and the action is planned as usual: a prediction must never
/// hide an action that would work.
/// </remarks>
[SupportedOSPlatform("linux")]
internal static unsafe class FileSystemProbe
{
    private const int ProbeBytes = 4096;

    /// <summary>Probes <paramref name="operation"/> (clone or dedupe) from <paramref name="keptPath"/> into <paramref name="folder"/>, which must be on <paramref name="device"/>.</summary>
    public static ProbeResult Probe(ProbedOperation operation, string keptPath, DuplicateFile kept, string folder, ulong device)
    {
        using var source = OpenKept(keptPath, kept, out var problem);
        if (source is null)
        {
            return new ProbeResult(ProbeOutcome.Unknown, problem);
        }

        var fd = Libc.OpenAt(Libc.AT_FDCWD, folder, Libc.O_TMPFILE | Libc.O_RDWR | Libc.O_CLOEXEC, 0x180);
        if (fd < 0)
        {
            return new ProbeResult(ProbeOutcome.Unknown, $"O_TMPFILE in the duplicate's folder: {Libc.Message(Libc.LastErrno)}");
        }

        using var probe = new SafeFileHandle((nint)fd, ownsHandle: true);
        if (Libc.FStat(fd, out var status) != 0 || status.Device != device)
        {
            return new ProbeResult(ProbeOutcome.Unknown, "the duplicate's folder is not on the duplicate's file system");
        }

        var keptFd = (int)source.DangerousGetHandle();
        return operation == ProbedOperation.Clone ? ProbeClone(keptFd, fd) : ProbeDedupe(source, keptFd, probe, fd);
    }

    private static ProbeResult ProbeClone(int keptFd, int probeFd) =>
        Libc.Ioctl(probeFd, Libc.FICLONE, keptFd) == 0
            ? new ProbeResult(ProbeOutcome.Supported, "FICLONE works")
            : Classify(Libc.LastErrno, CloneOperation.Unsupported);

    /// <summary>Copies the kept file's first bytes into the probe file, then asks the kernel to dedupe that range.</summary>
    private static ProbeResult ProbeDedupe(SafeFileHandle source, int keptFd, SafeFileHandle probe, int probeFd)
    {
        var buffer = new byte[ProbeBytes];
        int length;
        try
        {
            length = RandomAccess.Read(source, buffer, 0);
            if (length == 0)
            {
                return new ProbeResult(ProbeOutcome.Unknown, "the kept file is empty");
            }

            RandomAccess.Write(probe, buffer.AsSpan(0, length), 0);
        }
        catch (IOException ex)
        {
            return new ProbeResult(ProbeOutcome.Unknown, ex.Message);
        }

        var range = new DedupeRangeOne { SrcOffset = 0, SrcLength = (ulong)length, DestCount = 1, DestFd = probeFd, DestOffset = 0 };
        if (Libc.Ioctl(keptFd, Libc.FIDEDUPERANGE, (nint)(&range)) != 0)
        {
            return Classify(Libc.LastErrno, DedupeOperation.Unsupported);
        }

        return range.Status switch
        {
            0 => new ProbeResult(ProbeOutcome.Supported, "FIDEDUPERANGE works"),
            < 0 => Classify(-range.Status, DedupeOperation.Unsupported),
            _ => new ProbeResult(ProbeOutcome.Unknown, "the kernel found the probe's bytes differ (the kept file changed meanwhile)"),
        };
    }

    private static ProbeResult Classify(int errno, Func<int, string> refusal) => errno is Libc.EOPNOTSUPP or Libc.ENOTTY or Libc.ENOSYS
        ? new ProbeResult(ProbeOutcome.Unsupported, refusal(errno))
        : new ProbeResult(ProbeOutcome.Unknown, Libc.Message(errno));

    /// <summary>Opens the kept file for reading (no link followed, no access time where allowed) and checks it is the scanned file.</summary>
    private static SafeFileHandle? OpenKept(string path, DuplicateFile kept, out string problem)
    {
        var flags = Libc.O_RDONLY | Libc.O_NOFOLLOW | Libc.O_NONBLOCK | Libc.O_CLOEXEC;
        var fd = Libc.OpenAt(Libc.AT_FDCWD, path, flags | Libc.O_NOATIME, 0);
        // Stryker disable once Logical : retrying any failed open without O_NOATIME fails the same way unless the errno was O_NOATIME's EPERM
        if (fd < 0 && Libc.LastErrno == Libc.EPERM)
        {
            fd = Libc.OpenAt(Libc.AT_FDCWD, path, flags, 0); // O_NOATIME only on files we own
        }

        if (fd < 0)
        {
            problem = $"cannot open the kept file: {Libc.Message(Libc.LastErrno)}";
            return null;
        }

        var handle = new SafeFileHandle((nint)fd, ownsHandle: true);
        if (Libc.FStat(fd, out var status) != 0 || !status.IsRegularFile || status.Device != kept.Identity.Device || status.Ino != kept.Identity.FileId)
        {
            handle.Dispose();
            problem = "the kept file is no longer the scanned file";
            return null;
        }

        // Stryker disable once String : the problem is read only when null is returned
        problem = string.Empty;
        return handle;
    }
}
