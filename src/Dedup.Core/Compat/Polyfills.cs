#if !NET
using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Security.Cryptography;
using System.Threading.Channels;

namespace Dedup.Core;

/// <summary>
/// netstandard2.0 only: the BCL members net8+ has that shared code calls, as C# 14 extensions on the same types, so the
/// calls stay unchanged (on net8+ the real members are used and this file is not compiled). Types netstandard2.0 lacks
/// entirely are in <c>CompatTypes.cs</c>; packages supply the rest (System.Memory, Microsoft.Bcl.AsyncInterfaces, …).
/// </summary>
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

    extension(ArgumentException)
    {
        public static void ThrowIfNullOrEmpty([NotNull] string? argument, [CallerArgumentExpression(nameof(argument))] string? paramName = null)
        {
            if (argument is null)
            {
                throw new ArgumentNullException(paramName);
            }

            if (argument.Length == 0)
            {
                throw new ArgumentException("The value cannot be an empty string.", paramName);
            }
        }
    }

    extension(ArgumentOutOfRangeException)
    {
        public static void ThrowIfNegative(long value, [CallerArgumentExpression(nameof(value))] string? paramName = null)
        {
            if (value < 0)
            {
                throw new ArgumentOutOfRangeException(paramName, value, "The value must be non-negative.");
            }
        }

        public static void ThrowIfNegativeOrZero(long value, [CallerArgumentExpression(nameof(value))] string? paramName = null)
        {
            if (value <= 0)
            {
                throw new ArgumentOutOfRangeException(paramName, value, "The value must be positive.");
            }
        }
    }

    extension(OperatingSystem)
    {
        [SupportedOSPlatformGuard("linux")]
        public static bool IsLinux() => RuntimeInformation.IsOSPlatform(OSPlatform.Linux);

        [SupportedOSPlatformGuard("windows")]
        public static bool IsWindows() => RuntimeInformation.IsOSPlatform(OSPlatform.Windows);

        [SupportedOSPlatformGuard("macos")]
        public static bool IsMacOS() => RuntimeInformation.IsOSPlatform(OSPlatform.OSX);
    }

    extension(Marshal)
    {
        public static int GetLastPInvokeError() => Marshal.GetLastWin32Error();

        /// <summary>The operating system's text for an error number: strerror on Unix (Mono's Win32Exception knows Windows codes only).</summary>
        public static string GetPInvokeErrorMessage(int error) =>
            RuntimeInformation.IsOSPlatform(OSPlatform.Windows)
                ? new System.ComponentModel.Win32Exception(error).Message
                : Marshal.PtrToStringAnsi(CompatLibc.StrError(error)) ?? $"error {error}";

        public static unsafe string? PtrToStringUTF8(nint pointer) =>
            pointer == 0 ? null : System.Text.Encoding.UTF8.GetString((byte*)pointer, MemoryMarshal.CreateReadOnlySpanFromNullTerminated((byte*)pointer).Length);
    }

    extension(MemoryMarshal)
    {
        public static unsafe ReadOnlySpan<byte> CreateReadOnlySpanFromNullTerminated(byte* value)
        {
            var length = 0;
            while (value[length] != 0)
            {
                length++;
            }

            return new ReadOnlySpan<byte>(value, length);
        }
    }

    extension(string)
    {
        public static string Create(IFormatProvider provider, FormattableString text) => text.ToString(provider);

        public static string Join(char separator, IEnumerable<string> values) => string.Join(separator.ToString(), values);

        public static string Concat(ReadOnlySpan<char> a, ReadOnlySpan<char> b) => a.ToString() + b.ToString();

        public static string Concat(ReadOnlySpan<char> a, ReadOnlySpan<char> b, ReadOnlySpan<char> c) => a.ToString() + b.ToString() + c.ToString();
    }

    extension(string text)
    {
        public bool Contains(char value, StringComparison comparison) => text.IndexOf(value.ToString(), comparison) >= 0;

        public bool Contains(string value, StringComparison comparison) => text.IndexOf(value, comparison) >= 0;

        public bool StartsWith(char value) => text.Length > 0 && text[0] == value;

        public bool EndsWith(char value) => text.Length > 0 && text[^1] == value;

        public string[] Split(char separator, StringSplitOptions options) => text.Split([separator], options);

        public int IndexOf(char value, StringComparison comparison) => text.IndexOf(value.ToString(), comparison);
    }

    extension(char)
    {
        public static bool IsAsciiLetter(char c) => (uint)((c | 0x20) - 'a') <= 'z' - 'a';

        public static bool IsAsciiLetterOrDigit(char c) => (uint)((c | 0x20) - 'a') <= 'z' - 'a' || (uint)(c - '0') <= 9;
    }

    extension(CharUnicodeInfo)
    {
        public static UnicodeCategory GetUnicodeCategory(int codePoint) => CharUnicodeInfo.GetUnicodeCategory(char.ConvertFromUtf32(codePoint), 0);
    }

    extension(DateTime)
    {
        public static DateTime UnixEpoch => new(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    }

    extension(uint)
    {
        public static bool TryParse(string? s, IFormatProvider? provider, out uint result) =>
            uint.TryParse(s, NumberStyles.Integer, provider, out result);
    }

    extension(Enum)
    {
        public static bool IsDefined<T>(T value)
            where T : struct, Enum => Enum.IsDefined(typeof(T), value);
    }

    extension(BitConverter)
    {
        public static uint ToUInt32(ReadOnlySpan<byte> value) => MemoryMarshal.Read<uint>(value);
    }

    extension(SHA256)
    {
        public static int HashData(ReadOnlySpan<byte> source, Span<byte> destination)
        {
            using var sha = SHA256.Create();
            var digest = sha.ComputeHash(source.ToArray());
            digest.CopyTo(destination);
            return digest.Length;
        }
    }

    extension(IncrementalHash hash)
    {
        public void AppendData(ReadOnlySpan<byte> data)
        {
            var copy = ArrayPool<byte>.Shared.Rent(data.Length);
            data.CopyTo(copy);
            hash.AppendData(copy, 0, data.Length);
            ArrayPool<byte>.Shared.Return(copy);
        }

        public int GetHashAndReset(Span<byte> destination)
        {
            var digest = hash.GetHashAndReset();
            digest.CopyTo(destination);
            return digest.Length;
        }
    }

    extension(System.Text.Encoding encoding)
    {
        public unsafe bool TryGetBytes(ReadOnlySpan<char> chars, Span<byte> bytes, out int bytesWritten)
        {
            fixed (char* c = chars)
            fixed (byte* b = bytes)
            {
                if (encoding.GetByteCount(c, chars.Length) > bytes.Length)
                {
                    bytesWritten = 0;
                    return false;
                }

                bytesWritten = encoding.GetBytes(c, chars.Length, b, bytes.Length);
                return true;
            }
        }

        public unsafe string GetString(ReadOnlySpan<byte> bytes)
        {
            fixed (byte* b = bytes)
            {
                return bytes.IsEmpty ? string.Empty : encoding.GetString(b, bytes.Length);
            }
        }

        public unsafe int GetChars(ReadOnlySpan<byte> bytes, Span<char> chars)
        {
            fixed (byte* b = bytes)
            fixed (char* c = chars)
            {
                return bytes.IsEmpty ? 0 : encoding.GetChars(b, bytes.Length, c, chars.Length);
            }
        }
    }

    extension<T>(Span<T> span)
        where T : IEquatable<T>
    {
        public int IndexOfAnyExcept(T value)
        {
            for (var i = 0; i < span.Length; i++)
            {
                if (!span[i].Equals(value))
                {
                    return i;
                }
            }

            return -1;
        }

        public int CommonPrefixLength(ReadOnlySpan<T> other)
        {
            var length = Math.Min(span.Length, other.Length);
            for (var i = 0; i < length; i++)
            {
                if (!span[i].Equals(other[i]))
                {
                    return i;
                }
            }

            return length;
        }
    }

    extension<TKey, TValue>(Dictionary<TKey, TValue> dictionary)
        where TKey : notnull
    {
        public bool TryAdd(TKey key, TValue value)
        {
            if (dictionary.ContainsKey(key))
            {
                return false;
            }

            dictionary.Add(key, value);
            return true;
        }
    }

    extension<TKey, TValue>(ConcurrentDictionary<TKey, TValue> dictionary)
        where TKey : notnull
    {
        public TValue GetOrAdd<TArg>(TKey key, Func<TKey, TArg, TValue> valueFactory, TArg factoryArgument) =>
            dictionary.TryGetValue(key, out var value) ? value : dictionary.GetOrAdd(key, k => valueFactory(k, factoryArgument));
    }

    extension<TKey, TValue>(KeyValuePair<TKey, TValue> pair)
    {
        public void Deconstruct(out TKey key, out TValue value)
        {
            key = pair.Key;
            value = pair.Value;
        }
    }

    extension<T>(IEnumerable<T> source)
    {
        public HashSet<T> ToHashSet(IEqualityComparer<T>? comparer = null) => new(source, comparer);

        public IEnumerable<T> DistinctBy<TKey>(Func<T, TKey> keySelector)
        {
            var seen = new HashSet<TKey>();
            foreach (var item in source)
            {
                if (seen.Add(keySelector(item)))
                {
                    yield return item;
                }
            }
        }
    }

    extension<T>(ChannelReader<T> reader)
    {
        public async IAsyncEnumerable<T> ReadAllAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            while (await reader.WaitToReadAsync(cancellationToken).ConfigureAwait(false))
            {
                while (reader.TryRead(out var item))
                {
                    yield return item;
                }
            }
        }
    }

    extension(CancellationTokenSource source)
    {
        /// <summary>As on net8+: the callbacks run on the thread pool, not inline on the caller's thread.</summary>
        public Task CancelAsync() => Task.Run(source.Cancel);
    }
}
#endif
