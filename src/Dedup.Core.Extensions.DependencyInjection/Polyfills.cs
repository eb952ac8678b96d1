#if !NET
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace Dedup.Core;

/// <summary>netstandard2.0 only: the two BCL members net8+ has that this package calls, as C# 14 extensions.</summary>
internal static class Polyfills
{
    extension(ArgumentNullException)
    {
        public static void ThrowIfNull([NotNull] object? argument, [CallerArgumentExpression(nameof(argument))] string? paramName = null)
        {
            if (argument is null)
            {
                throw new ArgumentNullException(paramName);
            }
        }
    }

    extension(string text)
    {
        public string ReplaceLineEndings(string replacement) =>
            text.Replace("\r\n", "\n").Replace('\r', '\n').Replace("\n", replacement);
    }
}
#endif
