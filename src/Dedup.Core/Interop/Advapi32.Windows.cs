// Compiled on every platform; runs under Wine in the Windows tests: the current user's SID, which names the user's
// folder in each volume's Recycle Bin ($Recycle.Bin\<SID>).
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Interop;

/// <summary>The process token's user SID as text (<c>S-1-5-21-…</c>), without System.Security.Principal (not in netstandard2.0).</summary>
[SupportedOSPlatform("windows")]
internal static unsafe partial class Advapi32
{
    private const string LibraryName = "advapi32.dll";
    private const uint TokenQuery = 0x0008;
    private const int TokenUser = 1;

    /// <summary>The SID of the user the process runs as, or <see langword="null"/> when the token cannot be read.</summary>
    public static string? CurrentUserSid()
    {
        if (!OpenProcessToken(GetCurrentProcess(), TokenQuery, out var token))
        {
            return null;
        }

        try
        {
            _ = GetTokenInformation(token, TokenUser, null, 0, out var length);
            if (length == 0 || length > 4096)
            {
                return null;
            }

            var buffer = stackalloc byte[(int)length];
            if (!GetTokenInformation(token, TokenUser, buffer, length, out _))
            {
                return null;
            }

            // TOKEN_USER starts with SID_AND_ATTRIBUTES, whose first member is the PSID.
            if (!ConvertSidToStringSid(*(nint*)buffer, out var text) || text == 0)
            {
                return null;
            }

            try
            {
                return Marshal.PtrToStringUni(text);
            }
            finally
            {
                _ = LocalFree(text);
            }
        }
        finally
        {
            _ = CloseHandle(token);
        }
    }

#if NET
    [LibraryImport("kernel32.dll")]
    private static partial nint GetCurrentProcess();

    [LibraryImport("kernel32.dll")]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool CloseHandle(nint handle);

    [LibraryImport("kernel32.dll")]
    private static partial nint LocalFree(nint memory);

    [LibraryImport(LibraryName, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool OpenProcessToken(nint process, uint access, out nint token);

    [LibraryImport(LibraryName, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetTokenInformation(nint token, int informationClass, byte* information, uint length, out uint returned);

    [LibraryImport(LibraryName, EntryPoint = "ConvertSidToStringSidW", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool ConvertSidToStringSid(nint sid, out nint text);
#else
    [DllImport("kernel32.dll", ExactSpelling = true)]
    private static extern nint GetCurrentProcess();

    [DllImport("kernel32.dll", ExactSpelling = true)]
    private static extern bool CloseHandle(nint handle);

    [DllImport("kernel32.dll", ExactSpelling = true)]
    private static extern nint LocalFree(nint memory);

    [DllImport(LibraryName, SetLastError = true, ExactSpelling = true)]
    private static extern bool OpenProcessToken(nint process, uint access, out nint token);

    [DllImport(LibraryName, SetLastError = true, ExactSpelling = true)]
    private static extern bool GetTokenInformation(nint token, int informationClass, byte* information, uint length, out uint returned);

    [DllImport(LibraryName, EntryPoint = "ConvertSidToStringSidW", SetLastError = true, ExactSpelling = true)]
    private static extern bool ConvertSidToStringSid(nint sid, out nint text);
#endif
}
