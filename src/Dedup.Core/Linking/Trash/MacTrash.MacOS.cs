// Compiled on every platform; untested here (no macOS machine): moving a file to the Trash with
// -[NSFileManager trashItemAtURL:resultingItemURL:error:] through the Objective-C runtime.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking.Trash;

/// <summary>
/// Moves one file to the Trash of its volume as Finder does (the home Trash, or <c>.Trashes</c> on other
/// volumes). NSFileManager reports an error rather than deleting where there is no Trash.
/// </summary>
[SupportedOSPlatform("macos")]
internal static unsafe class MacTrash
{
    private const string FoundationPath = "/System/Library/Frameworks/Foundation.framework/Foundation";

    // A plain .NET process has not loaded Foundation, so its classes are not registered until it is.
    private static readonly Lazy<nint> s_foundation = new(() => NativeLibrary.Load(FoundationPath));

    /// <summary>Moves <paramref name="path"/> to the Trash; throws <see cref="ActionStoppedException"/> when it is not moved.</summary>
    /// <returns>Where the file is now (its name in the Trash may differ), or <see langword="null"/> if Foundation does not say.</returns>
    public static string? Move(string path)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            throw ActionStoppedException.Skip("the path contains a NUL character; not moved");
        }

        _ = s_foundation.Value;
        var pool = ObjC.AutoreleasePoolPush();
        try
        {
            // Every object below is autoreleased and lives until the pool is popped.
            var manager = ObjC.Send(Class("NSFileManager"), ObjC.Selector("defaultManager"));
            var text = ObjC.SendUtf8(Class("NSString"), ObjC.Selector("stringWithUTF8String:"), path);
            var url = text == 0 ? 0 : ObjC.Send(Class("NSURL"), ObjC.Selector("fileURLWithPath:"), text);
            if (manager == 0 || url == 0)
            {
                throw ActionStoppedException.Fail("Foundation returned no file manager or file URL; not moved");
            }

            nint resulting = 0;
            nint error = 0;
            if (ObjC.SendTrash(manager, ObjC.Selector("trashItemAtURL:resultingItemURL:error:"), url, &resulting, &error) == 0)
            {
                var reason = error == 0 ? string.Empty : Text(ObjC.Send(error, ObjC.Selector("localizedDescription")));
                throw PlanExecutor.TrashMoveFailed(path, "cannot move to the Trash: " + (reason.Length > 0 ? reason : "no reason given"));
            }

            return resulting == 0 ? null : Text(ObjC.Send(resulting, ObjC.Selector("path")));
        }
        finally
        {
            ObjC.AutoreleasePoolPop(pool);
        }
    }

    private static nint Class(string name)
    {
        var cls = ObjC.GetClass(name);
        return cls != 0 ? cls : throw ActionStoppedException.Fail($"the Objective-C class {name} is not available; not moved");
    }

    /// <summary>An NSString's text, copied while the pool still holds the string.</summary>
    private static string Text(nint nsString)
    {
        var utf8 = nsString == 0 ? 0 : ObjC.Send(nsString, ObjC.Selector("UTF8String"));
        return utf8 == 0 ? string.Empty : Marshal.PtrToStringUTF8(utf8) ?? string.Empty;
    }
}
