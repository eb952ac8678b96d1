using System.Runtime.InteropServices;

namespace Dedup.Core.Enumeration;

/// <summary>
/// A block of memory outside the GC heap for the file table's rows and names. The collector neither scans nor moves
/// it, and it does not count toward the heap whose growth decides when the collector runs: with a million rows held,
/// the scan's short-lived objects are collected while they are few, not after the heap has doubled. Freed when
/// released or, like any handle, when its last user is collected (a path made from the table later still finds its
/// bytes); the GC is told of the memory so that it collects in time.
/// </summary>
internal sealed unsafe class NativeBlock : SafeHandle
{
    public NativeBlock(int bytes)
        : base(IntPtr.Zero, ownsHandle: true)
    {
        Bytes = bytes;
        SetHandle(Marshal.AllocHGlobal(bytes));
        GC.AddMemoryPressure(bytes);
    }

    public int Bytes { get; }

    public byte* Pointer => (byte*)handle;

    public override bool IsInvalid => handle == IntPtr.Zero;

    protected override bool ReleaseHandle()
    {
        Marshal.FreeHGlobal(handle);
        GC.RemoveMemoryPressure(Bytes);
        return true;
    }
}
