using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.Tests.Hosting;

/// <summary>An <see cref="ILogger"/> that keeps every entry (level, event id, message) for assertions.</summary>
internal sealed class CollectingLogger : ILogger
{
    public ConcurrentQueue<(LogLevel Level, EventId Id, string Message, Exception? Exception)> Entries { get; } = new();

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        => Entries.Enqueue((logLevel, eventId, formatter(state, exception), exception));

    public int[] Ids => Entries.Select(e => e.Id.Id).ToArray();
}

/// <summary>An <see cref="IProgress{T}"/> that records on the reporting thread (no synchronization context hop).</summary>
internal sealed class Recorder<T>(Action<T>? onReport = null) : IProgress<T>
{
    public ConcurrentQueue<T> Items { get; } = new();

    public void Report(T value)
    {
        Items.Enqueue(value);
        onReport?.Invoke(value);
    }
}
