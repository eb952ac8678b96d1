using System.Globalization;
using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Journal;

namespace Dedup.Core.Linking.Operations;

/// <summary>
/// Shares the duplicate's extents with the kept file through FIDEDUPERANGE, in ranges of at most 16 MiB. The
/// kernel locks and compares both ranges itself, so a file changed since the scan is never altered.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class DedupeOperation
{
    private const ulong MaxRange = 16UL << 20;

    public static void Apply(LinkContext context)
    {
        var kept = context.OpenKept();
        using var duplicate = context.OpenDuplicate();
        if (context.Journal is not null)
        {
            // The same file, same size and modification time, its extents shared with the kept file.
            var status = context.DuplicateStatus;
            context.Begin("dedupe", JournalFile.Of(status));
        }

        context.Faults?.AfterLastCheck?.Invoke(context.DuplicatePath);
        Dedupe(LinkContext.Fd(kept), LinkContext.Fd(duplicate), (ulong)context.Action.Duplicate.Length);
    }

    /// <summary>Dedupes the first <paramref name="length"/> bytes of <paramref name="duplicateFd"/> against <paramref name="keptFd"/>; throws when the kernel refuses.</summary>
    internal static void Dedupe(int keptFd, int duplicateFd, ulong length)
    {
        ulong offset = 0;
        while (offset < length)
        {
            var range = new DedupeRangeOne
            {
                SrcOffset = offset,
                SrcLength = Math.Min(MaxRange, length - offset),
                DestCount = 1,
                DestFd = duplicateFd,
                DestOffset = offset,
            };
            if (Libc.Ioctl(keptFd, Libc.FIDEDUPERANGE, (nint)(&range)) != 0)
            {
                throw Refuse(Libc.LastErrno, offset);
            }

            if (range.Status == 1)
            {
                throw ActionStoppedException.Skip(string.Create(CultureInfo.InvariantCulture,
                    $"the kernel found the content differs from the kept file in bytes {offset}–{offset + range.SrcLength}; the duplicate's content was not changed"));
            }

            if (range.Status < 0)
            {
                throw Refuse(-range.Status, offset);
            }

            // btrfs dedupes the whole range or reports an error; never loop without progress.
            // Stryker disable once Equality,Conditional : with status 0 the kernel reports bytes_deduped as the range's length
            offset += range.BytesDeduped > 0 ? range.BytesDeduped : range.SrcLength;
        }
    }

    /// <summary>Why dedupe is refused when the file system answers FIDEDUPERANGE with <paramref name="errno"/> (also the plan's prediction).</summary>
    public static string Unsupported(int errno) => $"the file system cannot dedupe this file (FIDEDUPERANGE: {Libc.Message(errno)})";

    private static ActionStoppedException Refuse(int errno, ulong offset) => errno is Libc.EOPNOTSUPP or Libc.EINVAL or Libc.EXDEV or Libc.ENOTTY
        ? ActionStoppedException.Skip(Unsupported(errno))
        : ActionStoppedException.Fail(string.Create(CultureInfo.InvariantCulture, $"FIDEDUPERANGE failed at byte {offset}: {Libc.Message(errno)}; content unchanged"));
}
