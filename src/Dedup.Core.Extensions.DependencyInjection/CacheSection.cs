using System.Diagnostics.CodeAnalysis;
using Dedup.Core.Caching;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Primitives;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// A finder's <c>Cache</c> section (<c>{ "Path": "/var/lib/app/dedup.db", "Required": true }</c>), bound as named
/// options beside its <see cref="Dedup.Core.ScanOptions"/>: <see cref="Configured"/> only when the section exists.
/// </summary>
internal sealed class CacheSettings
{
    public const string Key = "Cache";

    public string? Path { get; set; }

    public bool Required { get; set; }

    /// <summary>Where the section is (<c>Dedup:Cache</c>), for messages; <see langword="null"/> when there is none.</summary>
    internal string? SectionPath { get; private set; }

    internal bool Configured => SectionPath is not null;

    [RequiresUnreferencedCode("Binds with the configuration binder's reflection.")]
    [RequiresDynamicCode("Binds with the configuration binder's reflection.")]
    internal void Bind(IConfiguration finderSection, IServiceProvider services)
    {
        var section = finderSection.GetSection(Key);
        if (!section.Exists())
        {
            return;
        }

        // A cache section that nothing reads would be a setting silently lost, as a misspelt key is.
        if (services.GetService<CacheStore>() is null)
        {
            throw new InvalidOperationException(
                $"'{section.Path}' is set, but no cache store is registered: reference the Dedup.Core.Sqlite package and call services.AddDedupCache(path => new SqliteHashCache(path)).");
        }

        section.Bind(this, binder => binder.ErrorOnUnknownConfiguration = true);
        SectionPath = section.Path;
    }
}

/// <summary>Stops the host at start when a finder's <c>Cache</c> section has no <c>Path</c>.</summary>
internal sealed class CacheSettingsValidator : Microsoft.Extensions.Options.IValidateOptions<CacheSettings>
{
    public Microsoft.Extensions.Options.ValidateOptionsResult Validate(string? name, CacheSettings options) =>
        !options.Configured || !string.IsNullOrWhiteSpace(options.Path)
            ? Microsoft.Extensions.Options.ValidateOptionsResult.Success
            : Microsoft.Extensions.Options.ValidateOptionsResult.Fail($"{options.SectionPath}:Path is empty: the cache needs a file.");
}

/// <summary>The store given to <c>AddDedupCache</c>: opens the cache of a finder's <c>Cache:Path</c>.</summary>
internal sealed class CacheStore(Func<string, HashCache> open)
{
    public HashCache Open(CacheSettings settings) =>
        open(settings.Path!) ?? throw new InvalidOperationException($"The cache store given to AddDedupCache returned null for '{settings.SectionPath}:Path'.");
}

/// <summary>
/// A finder's configuration section without its <c>Cache</c> child, so that <see cref="Dedup.Core.ScanOptions"/> bind
/// with unknown keys refused while the cache keys are bound (and checked) by <see cref="CacheSettings"/>.
/// </summary>
internal sealed class ScanOptionsConfiguration(IConfiguration configuration) : IConfiguration
{
    public string? this[string key]
    {
        get => configuration[key];
        set => configuration[key] = value;
    }

    public IEnumerable<IConfigurationSection> GetChildren() =>
        configuration.GetChildren().Where(c => !string.Equals(c.Key, CacheSettings.Key, StringComparison.OrdinalIgnoreCase));

    public IChangeToken GetReloadToken() => configuration.GetReloadToken();

    public IConfigurationSection GetSection(string key) => configuration.GetSection(key);
}
