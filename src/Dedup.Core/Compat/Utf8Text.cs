namespace Dedup.Core;

/// <summary>UTF-8 validation of file names: <c>Utf8.IsValid</c> on net8+, a strict decoder on netstandard2.0.</summary>
internal static class Utf8Text
{
#if NET
    public static bool IsValid(ReadOnlySpan<byte> bytes) => System.Text.Unicode.Utf8.IsValid(bytes);
#else
    private static readonly System.Text.UTF8Encoding Strict = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    public static unsafe bool IsValid(ReadOnlySpan<byte> bytes)
    {
        if (bytes.IsEmpty)
        {
            return true;
        }

        try
        {
            fixed (byte* p = bytes)
            {
                Strict.GetCharCount(p, bytes.Length);
            }

            return true;
        }
        catch (System.Text.DecoderFallbackException)
        {
            return false;
        }
    }
#endif
}
