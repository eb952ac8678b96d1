#if !NET
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core;

// netstandard2.0 only: internal stand-ins, same names and shapes, for the few BCL types net8+ has and netstandard2.0
// lacks entirely, so shared code compiles unchanged. On Linux they call libc (Mono can), elsewhere the BCL.

/// <summary>Positional reads and writes: <c>pread</c>/<c>pwrite</c> on Unix, a FileStream over the handle elsewhere.</summary>
internal static unsafe class RandomAccess
{
    public static int Read(SafeFileHandle handle, Span<byte> buffer, long fileOffset)
    {
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            using var stream = Borrow(handle, FileAccess.Read);
            stream.Position = fileOffset;
            var array = new byte[buffer.Length];
            var read = stream.Read(array, 0, array.Length);
            array.AsSpan(0, read).CopyTo(buffer);
            return read;
        }

        return Interop.PositionalRead.Read(handle, buffer, fileOffset);
    }

    public static void Write(SafeFileHandle handle, ReadOnlySpan<byte> buffer, long fileOffset)
    {
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            using var stream = Borrow(handle, FileAccess.Write);
            stream.Position = fileOffset;
            stream.Write(buffer.ToArray(), 0, buffer.Length);
            return;
        }

        var added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            fixed (byte* p = buffer)
            {
                var written = 0;
                while (written < buffer.Length)
                {
                    var n = CompatLibc.PWrite((int)handle.DangerousGetHandle(), p + written, (nuint)(buffer.Length - written), fileOffset + written);
                    if (n < 0)
                    {
                        Interop.PositionalRead.ThrowUnlessInterrupted();
                        continue;
                    }

                    written += (int)n;
                }
            }
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    public static long GetLength(SafeFileHandle handle)
    {
        using var stream = Borrow(handle, FileAccess.Read);
        return stream.Length;
    }

    /// <summary>A FileStream that does not close <paramref name="handle"/> when disposed.</summary>
    private static FileStream Borrow(SafeFileHandle handle, FileAccess access) =>
        new(new SafeFileHandle(handle.DangerousGetHandle(), ownsHandle: false), access, bufferSize: 1);
}

/// <summary>Reference identity, as <c>System.Collections.Generic.ReferenceEqualityComparer</c>.</summary>
internal sealed class ReferenceEqualityComparer : IEqualityComparer<object?>, System.Collections.IEqualityComparer
{
    public static ReferenceEqualityComparer Instance { get; } = new();

    private ReferenceEqualityComparer()
    {
    }

    public new bool Equals(object? x, object? y) => ReferenceEquals(x, y);

    public int GetHashCode(object? obj) => System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(obj!);
}

/// <summary>Ticks every period; <see cref="WaitForNextTickAsync"/> returns false once disposed.</summary>
internal sealed class PeriodicTimer(TimeSpan period) : IDisposable
{
    private volatile bool _disposed;

    public async ValueTask<bool> WaitForNextTickAsync(CancellationToken cancellationToken = default)
    {
        if (_disposed)
        {
            return false;
        }

        await Task.Delay(period, cancellationToken).ConfigureAwait(false);
        return !_disposed;
    }

    public void Dispose() => _disposed = true;
}

/// <summary>Frees memory libc allocated (<c>realpath</c>'s result).</summary>
internal static unsafe class NativeMemory
{
    public static void Free(void* pointer) => CompatLibc.Free(pointer);
}

/// <summary>Loads a library by path (macOS: Foundation, so its classes are registered).</summary>
internal static class NativeLibrary
{
    public static nint Load(string path)
    {
        var handle = CompatLibc.DlOpen(path, 2 /* RTLD_NOW */);
        return handle != 0 ? handle : throw new DllNotFoundException(path);
    }
}

/// <summary>Bit counting (the size barrier's row ranks, the key pass's row mask).</summary>
internal static class BitOperations
{
    /// <summary>The number of zero bits below the lowest set bit (64 for 0).</summary>
    public static int TrailingZeroCount(ulong value) => value == 0 ? 64 : PopCount((value & (0 - value)) - 1);

    public static int PopCount(ulong value)
    {
        // The classic SWAR count: no hardware instruction is reachable from netstandard2.0.
        value -= (value >> 1) & 0x5555555555555555UL;
        value = (value & 0x3333333333333333UL) + ((value >> 2) & 0x3333333333333333UL);
        value = (value + (value >> 4)) & 0x0F0F0F0F0F0F0F0FUL;
        return (int)((value * 0x0101010101010101UL) >> 56);
    }
}

/// <summary>The libc calls only the netstandard2.0 stand-ins need.</summary>
internal static unsafe class CompatLibc
{
    [DllImport("libc", EntryPoint = "strerror", ExactSpelling = true)]
    public static extern nint StrError(int errno);

    [DllImport("libc", EntryPoint = "pwrite64", SetLastError = true, ExactSpelling = true)]
    public static extern nint PWrite(int fd, byte* buffer, nuint count, long offset);

    [DllImport("libc", EntryPoint = "free", ExactSpelling = true)]
    public static extern void Free(void* pointer);

    [DllImport("libc", EntryPoint = "open", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int Open(string path, int flags, int mode);

    [DllImport("libSystem.dylib", EntryPoint = "dlopen", CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern nint DlOpen(string path, int mode);
}
#endif
