using System.Runtime.InteropServices;

namespace Dedup.Core.Enumeration;

/// <summary>
/// A block of memory outside the GC heap for the file table's rows and names. The collector neither scans nor moves
/// it, and it does not count toward the heap whose growth decides when the collector runs: with a million rows held,
/// the scan's short-lived objects are collected while they are few, not after the heap has doubled. Freed when
/// released or, like any handle, when its last user is collected (a path made from the table later still finds its
/// bytes); once a table is large, the GC is told of the memory so that it collects in time.
/// </summary>
internal sealed unsafe class NativeBlock : SafeHandle
{
    /// <param name="bytes">Size of the block.</param>
    /// <param name="reportPressure">
    /// Whether to tell the GC of the memory: only once a table is large (see <see cref="PressureFrom"/>). Every report
    /// may start a full collection, so small scans report none and collect as if the table were not there.
    /// </param>
    public NativeBlock(int bytes, bool reportPressure)
        : base(IntPtr.Zero, ownsHandle: true)
    {
        Bytes = bytes;
        SetHandle(Marshal.AllocHGlobal(bytes));
        _pressure = reportPressure;
        if (reportPressure)
        {
            GC.AddMemoryPressure(bytes);
        }
    }

    /// <summary>Bytes a table holds before its further blocks are reported to the GC.</summary>
    public const long PressureFrom = 64L << 20;

    private readonly bool _pressure;

    public int Bytes { get; }

    public byte* Pointer => (byte*)handle;

    public override bool IsInvalid => handle == IntPtr.Zero;

    protected override bool ReleaseHandle()
    {
        Marshal.FreeHGlobal(handle);
        if (_pressure)
        {
            GC.RemoveMemoryPressure(Bytes);
        }
        return true;
    }
}
