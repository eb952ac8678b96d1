using System.Collections.Concurrent;
using Dedup.Core.Reporting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.ExternalTests;

/// <summary>One log entry as the host's logging passed it on.</summary>
public sealed record LogEntry(string Category, LogLevel Level, EventId EventId, string Message);

/// <summary>Collects every log entry of a host, from every category, in memory.</summary>
public sealed class CollectingLoggerProvider : ILoggerProvider
{
    private readonly ConcurrentQueue<LogEntry> _entries = new();

    public IReadOnlyList<LogEntry> Entries => _entries.ToArray();

    public ILogger CreateLogger(string categoryName) => new Logger(categoryName, _entries);

    public void Dispose()
    {
    }

    private sealed class Logger(string category, ConcurrentQueue<LogEntry> entries) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel != LogLevel.None;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            entries.Enqueue(new LogEntry(category, logLevel, eventId, formatter(state, exception)));
    }
}

/// <summary>Keeps every report synchronously (unlike <see cref="Progress{T}"/>, which posts to the thread pool).</summary>
public sealed class CollectingProgress<T> : IProgress<T>
{
    private readonly ConcurrentQueue<T> _items = new();

    public IReadOnlyList<T> Items => _items.ToArray();

    public void Report(T value) => _items.Enqueue(value);
}

/// <summary>Hosts made the way a service makes them, with the "Dedup" section from an in-memory configuration.</summary>
public static class TestHosts
{
    public static IHost FromConfiguration(IDictionary<string, string?> dedup, CollectingLoggerProvider? logs = null)
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(dedup.Select(p => new KeyValuePair<string, string?>("Dedup:" + p.Key, p.Value)));
        builder.Services.AddDedup(builder.Configuration.GetSection("Dedup"));
        if (logs is not null)
        {
            builder.Logging.AddProvider(logs);
        }

        return builder.Build();
    }

    public static async Task<(List<DuplicateGroup> Groups, ScanSummary Summary)> RunAsync(DuplicateFinder finder, ScanCallbacks callbacks)
    {
        var scan = finder.FindAsync(callbacks);
        var groups = new List<DuplicateGroup>();
        await foreach (var group in scan)
        {
            groups.Add(group);
        }

        return (groups, scan.Summary);
    }
}
