// Compiled on every platform; untested here (no macOS machine): the Objective-C runtime calls used to reach
// NSFileManager's trashItemAtURL:resultingItemURL:error:.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Interop;

/// <summary>
/// The Objective-C runtime. <c>objc_msgSend</c> must be called with the exact signature of the method it
/// dispatches to (on arm64 a mismatched or variadic call passes arguments in the wrong places), so each
/// signature used is its own entry point.
/// </summary>
[SupportedOSPlatform("macos")]
internal static unsafe partial class ObjC
{
    private const string LibraryName = "/usr/lib/libobjc.A.dylib";

#if NET
    [LibraryImport(LibraryName, EntryPoint = "objc_getClass", StringMarshalling = StringMarshalling.Utf8)]
    public static partial nint GetClass(string name);
#else
    [DllImport(LibraryName, EntryPoint = "objc_getClass", CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern nint GetClass(string name);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "sel_registerName", StringMarshalling = StringMarshalling.Utf8)]
    public static partial nint Selector(string name);
#else
    [DllImport(LibraryName, EntryPoint = "sel_registerName", CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern nint Selector(string name);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "objc_autoreleasePoolPush")]
    public static partial nint AutoreleasePoolPush();
#else
    [DllImport(LibraryName, EntryPoint = "objc_autoreleasePoolPush", ExactSpelling = true)]
    public static extern nint AutoreleasePoolPush();
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "objc_autoreleasePoolPop")]
    public static partial void AutoreleasePoolPop(nint pool);
#else
    [DllImport(LibraryName, EntryPoint = "objc_autoreleasePoolPop", ExactSpelling = true)]
    public static extern void AutoreleasePoolPop(nint pool);
#endif

    /// <summary><c>id</c> result, no arguments (<c>defaultManager</c>, <c>localizedDescription</c>, <c>path</c>, <c>UTF8String</c>).</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "objc_msgSend")]
    public static partial nint Send(nint receiver, nint selector);
#else
    [DllImport(LibraryName, EntryPoint = "objc_msgSend", ExactSpelling = true)]
    public static extern nint Send(nint receiver, nint selector);
#endif

    /// <summary><c>id</c> result, one object argument (<c>fileURLWithPath:</c>).</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "objc_msgSend")]
    public static partial nint Send(nint receiver, nint selector, nint argument);
#else
    [DllImport(LibraryName, EntryPoint = "objc_msgSend", ExactSpelling = true)]
    public static extern nint Send(nint receiver, nint selector, nint argument);
#endif

    /// <summary><c>id</c> result, one C-string argument (<c>stringWithUTF8String:</c>).</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "objc_msgSend", StringMarshalling = StringMarshalling.Utf8)]
    public static partial nint SendUtf8(nint receiver, nint selector, string argument);
#else
    [DllImport(LibraryName, EntryPoint = "objc_msgSend", CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern nint SendUtf8(nint receiver, nint selector, string argument);
#endif

    /// <summary>
    /// <c>BOOL</c> result, (<c>NSURL*</c>, <c>NSURL**</c>, <c>NSError**</c>) arguments
    /// (<c>trashItemAtURL:resultingItemURL:error:</c>). BOOL is one byte on both architectures.
    /// </summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "objc_msgSend")]
    public static partial byte SendTrash(nint receiver, nint selector, nint url, nint* resultingUrl, nint* error);
#else
    [DllImport(LibraryName, EntryPoint = "objc_msgSend", ExactSpelling = true)]
    public static extern byte SendTrash(nint receiver, nint selector, nint url, nint* resultingUrl, nint* error);
#endif
}
