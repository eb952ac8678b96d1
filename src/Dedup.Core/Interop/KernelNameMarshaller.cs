using System.Runtime.InteropServices;
using System.Text;
#if NET
using System.Runtime.InteropServices.Marshalling;
#endif

namespace Dedup.Core.Interop;

/// <summary>
/// Marshals a path or name to the kernel's exact bytes (NUL-terminated) with <see cref="KernelNameCodec"/>: a byte of a
/// scanned name that is not valid UTF-8 (kept as U+DC80–U+DCFF) goes back as that byte, never as U+FFFD. A string
/// that cannot be encoded losslessly (a NUL, another lone surrogate) throws instead of naming another file.
/// </summary>
#if NET
[CustomMarshaller(typeof(string), MarshalMode.Default, typeof(KernelNameMarshaller))]
#endif
internal static unsafe class KernelNameMarshaller
{
    public static byte* ConvertToUnmanaged(string? managed)
    {
        if (managed is null)
        {
            return null;
        }

        var size = KernelNameCodec.MaxByteCount(managed.Length) + 1;
        var buffer = (byte*)Marshal.AllocHGlobal(size);
        if (!KernelNameCodec.TryEncode(managed.AsSpan(), new Span<byte>(buffer, size - 1), out var written))
        {
            Marshal.FreeHGlobal((nint)buffer);
            throw new ArgumentException($"'{Shown(managed)}' cannot be passed to the system as a file name without changing it.", nameof(managed));
        }

        buffer[written] = 0;
        return buffer;
    }

    public static string? ConvertToManaged(byte* unmanaged) =>
        unmanaged is null ? null : KernelNameCodec.GetString(MemoryMarshal.CreateReadOnlySpanFromNullTerminated(unmanaged));

    public static void Free(byte* unmanaged) => Marshal.FreeHGlobal((nint)unmanaged);

    /// <summary>
    /// The name for a message, every character but printable ASCII as <c>\u{XXXX}</c>: it holds a NUL or a lone
    /// surrogate, and may hold controls. Plainer than <c>Paths.PathText</c>'s rules, which live above this layer.
    /// </summary>
    internal static string Shown(string name)
    {
        var shown = new StringBuilder(name.Length);
        foreach (var c in name)
        {
            if (c is >= ' ' and <= '~' and not '\\')
            {
                shown.Append(c);
            }
            else
            {
                shown.Append(@"\u{").Append(((int)c).ToString("X4", System.Globalization.CultureInfo.InvariantCulture)).Append('}');
            }
        }

        return shown.ToString();
    }
}

/// <summary>The same encoding for the netstandard2.0 <c>[DllImport]</c> declarations (<c>UnmanagedType.CustomMarshaler</c>).</summary>
internal sealed unsafe class KernelNameCustomMarshaler : ICustomMarshaler
{
    private static readonly KernelNameCustomMarshaler Instance = new();

#pragma warning disable IDE0060 // the signature the runtime looks for
    public static ICustomMarshaler GetInstance(string cookie) => Instance;
#pragma warning restore IDE0060

    public nint MarshalManagedToNative(object managedObj) => (nint)KernelNameMarshaller.ConvertToUnmanaged((string)managedObj);

    public object MarshalNativeToManaged(nint pNativeData) => throw new NotSupportedException();

    public void CleanUpNativeData(nint pNativeData) => KernelNameMarshaller.Free((byte*)pNativeData);

    public void CleanUpManagedData(object managedObj)
    {
    }

    public int GetNativeDataSize() => -1;
}
