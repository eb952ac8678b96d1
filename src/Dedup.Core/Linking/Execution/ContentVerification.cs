using System.Globalization;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

/// <summary>The byte-for-byte comparison every linker except Dedupe relies on before acting.</summary>
internal static class ContentVerification
{
    private const int ChunkSize = 1 << 20;

    /// <summary>
    /// Copies the first <paramref name="length"/> bytes of <paramref name="from"/> into <paramref name="to"/> (undo's
    /// copies back); a source shorter than that ends the copy early, which <see cref="RequireEqual"/> then reports.
    /// </summary>
    public static void Copy(SafeFileHandle from, SafeFileHandle to, long length)
    {
        var buffer = Pooling.BufferPool.Shared.Rent(ChunkSize);
        try
        {
            for (long offset = 0; offset < length;)
            {
                var read = Interop.PositionalRead.ReadFull(from, buffer.AsSpan(0, (int)Math.Min(ChunkSize, length - offset)), offset);
                if (read == 0)
                {
                    break;
                }

                RandomAccess.Write(to, buffer.AsSpan(0, read), offset);
                offset += read;
            }
        }
        finally
        {
            Pooling.BufferPool.Shared.Return(buffer);
        }
    }

    /// <summary>Compares the two open files from the start; throws a skip when they differ or do not hold <paramref name="length"/> bytes.</summary>
    public static void RequireEqual(SafeFileHandle kept, SafeFileHandle duplicate, long length)
    {
        var a = Pooling.BufferPool.Shared.Rent(ChunkSize);
        var b = Pooling.BufferPool.Shared.Rent(ChunkSize);
        try
        {
            long offset = 0;
            while (true)
            {
                // One byte more than the scanned length leaves: a file that holds exactly that ends within this read,
                // without one more read to find its end (ReadFull returns less than asked only at the end).
                var want = (int)Math.Min(ChunkSize, Math.Max(0, length - offset) + 1);
                var na = Interop.PositionalRead.ReadFull(kept, a.AsSpan(0, want), offset);
                var nb = Interop.PositionalRead.ReadFull(duplicate, b.AsSpan(0, want), offset);
                // The common prefix also covers one file ending early: the first difference is then where the shorter read stopped.
                var same = a.AsSpan(0, na).CommonPrefixLength(b.AsSpan(0, nb));
                if (same != na || na != nb)
                {
                    throw ActionStoppedException.Skip(string.Create(CultureInfo.InvariantCulture, $"content differs from the kept file at byte {offset + same}; left untouched"));
                }

                offset += na;
                if (na < want)
                {
                    break;
                }
            }

            if (offset != length)
            {
                throw ActionStoppedException.Skip("size changed while verifying; left untouched");
            }
        }
        finally
        {
            // Stryker disable once Statement : a buffer not returned is collected; the pool rents a new one (nothing observable changes)
            Pooling.BufferPool.Shared.Return(a);
            // Stryker disable once Statement : as above
            Pooling.BufferPool.Shared.Return(b);
        }
    }
}
