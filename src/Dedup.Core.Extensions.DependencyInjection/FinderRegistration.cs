using Dedup.Core;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// One finder given to <c>AddDedup</c>: its name (<see langword="null"/> for the application's unnamed finder) and
/// builder callback. Kept as a service so a second registration of the same name is seen and refused.
/// </summary>
internal sealed class FinderRegistration(string? name, Action<DuplicateFinderBuilder, IServiceProvider>? configureBuilder)
{
    public string? Name { get; } = name;

    public DuplicateFinder CreateFinder(IServiceProvider services)
    {
        var optionsName = Name ?? Microsoft.Extensions.Options.Options.DefaultName;
        var options = services.GetRequiredService<IOptionsMonitor<ScanOptions>>().Get(optionsName);
        var builder = new DuplicateFinderBuilder().Configure(options);
        var cache = services.GetRequiredService<IOptionsMonitor<CacheSettings>>().Get(optionsName);
        if (cache.Configured)
        {
            builder.UseCache(services.GetRequiredService<CacheStore>().Open(cache), cache.Required);
        }

        if (services.GetService<ILoggerFactory>() is { } loggerFactory)
        {
            builder.UseLogger(loggerFactory.CreateLogger(DedupServiceCollectionExtensions.LoggerCategory));
        }

        configureBuilder?.Invoke(builder, services);
        return builder.Build();
    }
}
