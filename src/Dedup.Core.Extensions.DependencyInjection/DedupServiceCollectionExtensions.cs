using System.Diagnostics.CodeAnalysis;
using Dedup.Core;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Registers a <see cref="DuplicateFinder"/> in an <see cref="IServiceCollection"/>: its <see cref="ScanOptions"/>
/// (from code or bound from configuration), validated when the host starts, and one finder shared by the whole
/// application that logs through the host's <see cref="ILoggerFactory"/>.
/// </summary>
/// <remarks>
/// <para>
/// Roots are not checked at start-up: a service may start before its backup disk is mounted. Each scan checks them
/// when it starts, and its first <c>MoveNextAsync</c> throws <see cref="DirectoryNotFoundException"/> naming the
/// missing root; <see cref="DuplicateFinder.CheckRoots"/> checks them on demand (and the paths of drive kinds are looked
/// up then too). Everything else (sizes, globs, comparer name, hash settings, modes, parallelism, at least one root) is
/// validated by <see cref="ScanOptions.Validate"/> when the host starts, and bad values stop it with one
/// <see cref="OptionsValidationException"/> listing every problem.
/// </para>
/// <para>
/// The finder is built once, when first resolved, from the options at that moment. Give each run its own progress and
/// error sinks with <see cref="DuplicateFinder.FindAsync(Dedup.Core.Reporting.ScanCallbacks, CancellationToken)"/>.
/// </para>
/// <para>
/// An application with several finders names them: <c>AddDedup("photos", ...)</c> registers a keyed service, resolved
/// with <c>[FromKeyedServices("photos")] DuplicateFinder</c> or <c>GetRequiredKeyedService&lt;DuplicateFinder&gt;("photos")</c>,
/// with its own named <see cref="ScanOptions"/>. Registering the same finder twice (the same name, or the unnamed one)
/// throws, rather than merging two configurations into one finder. Configuration keys that are not settings
/// (<c>Dedup:Rots</c>) stop the host at start.
/// </para>
/// </remarks>
public static class DedupServiceCollectionExtensions
{
    /// <summary>Logger category of the finder's log events (scans: event ids 100–105).</summary>
    public const string LoggerCategory = "Dedup.Core";

    /// <summary>Registers the application's <see cref="DuplicateFinder"/>, configured in code.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the scan options (roots, globs, sizes, comparer, ...).</param>
    /// <param name="configureBuilder">
    /// Optional: plugs services into the builder after the options are applied, for example
    /// <c>(builder, sp) =&gt; builder.UseFileEnumerator(sp.GetRequiredService&lt;MyEnumerator&gt;())</c>.
    /// </param>
    /// <returns>The service collection.</returns>
    /// <exception cref="InvalidOperationException">The unnamed finder is registered already.</exception>
    public static IServiceCollection AddDedup(
        this IServiceCollection services,
        Action<ScanOptions> configure,
        Action<DuplicateFinderBuilder, IServiceProvider>? configureBuilder = null)
    {
        ArgumentNullException.ThrowIfNull(configure);
        return AddDedup(services, null, options => options.Configure(configure), configureBuilder);
    }

    /// <summary>Registers a named <see cref="DuplicateFinder"/> (a keyed service, the key being <paramref name="name"/>), configured in code.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="name">The finder's name: its service key and the name of its <see cref="ScanOptions"/>.</param>
    /// <param name="configure">Sets the scan options (roots, globs, sizes, comparer, ...).</param>
    /// <param name="configureBuilder">Optional: plugs services into the builder after the options are applied.</param>
    /// <returns>The service collection.</returns>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty.</exception>
    /// <exception cref="InvalidOperationException">A finder of that name is registered already.</exception>
    public static IServiceCollection AddDedup(
        this IServiceCollection services,
        string name,
        Action<ScanOptions> configure,
        Action<DuplicateFinderBuilder, IServiceProvider>? configureBuilder = null)
    {
        ArgumentNullException.ThrowIfNull(configure);
        return AddDedup(services, CheckName(name), options => options.Configure(configure), configureBuilder);
    }

    /// <summary>
    /// Registers the application's <see cref="DuplicateFinder"/> with <see cref="ScanOptions"/> bound from a
    /// configuration section, for example <c>builder.Configuration.GetSection("Dedup")</c> with the keys <c>Roots</c>,
    /// <c>Include</c>, <c>Exclude</c> (lists), <c>MinSize</c>, <c>MaxSize</c>, <c>IncludeHidden</c>,
    /// <c>IncludeEmptyFiles</c>, <c>FollowSymbolicLinks</c>, <c>StayOnOneFileSystem</c>, <c>Comparer</c>,
    /// <c>HashAlgorithm</c>, <c>TrustHashes</c>, <c>MediaMode</c>, <c>FolderMode</c>, <c>IgnoreFolderNames</c>,
    /// <c>MaxDegreeOfParallelism</c> and <c>DriveKinds</c> (a list of objects with <c>Path</c> and <c>Kind</c>), and
    /// <c>Cache</c> (<c>Path</c>, <c>Required</c>) once <see cref="AddDedupCache"/> names the store. Any other key in
    /// the section stops the host at start, naming it.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The section holding the scan options.</param>
    /// <param name="configureBuilder">Optional: plugs services into the builder after the options are applied.</param>
    /// <returns>The service collection.</returns>
    /// <exception cref="InvalidOperationException">The unnamed finder is registered already.</exception>
    /// <remarks>
    /// Binding uses the configuration binder's reflection, as <c>services.Configure&lt;T&gt;(IConfiguration)</c> does;
    /// a trimmed or NativeAOT application binds in its own code instead (where the binder's source generator applies)
    /// and calls <see cref="AddDedup(IServiceCollection, Action{ScanOptions}, Action{DuplicateFinderBuilder, IServiceProvider})"/>.
    /// </remarks>
    [RequiresUnreferencedCode(BindingWarning)]
    [RequiresDynamicCode(BindingWarning)]
    public static IServiceCollection AddDedup(
        this IServiceCollection services,
        IConfiguration configuration,
        Action<DuplicateFinderBuilder, IServiceProvider>? configureBuilder = null)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        return AddDedup(services, null, options => Bind(options, configuration), configureBuilder);
    }

    /// <summary>
    /// Registers a named <see cref="DuplicateFinder"/> (a keyed service, the key being <paramref name="name"/>) with
    /// <see cref="ScanOptions"/> bound from a configuration section, as
    /// <see cref="AddDedup(IServiceCollection, IConfiguration, Action{DuplicateFinderBuilder, IServiceProvider})"/> binds them.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="name">The finder's name: its service key and the name of its <see cref="ScanOptions"/>.</param>
    /// <param name="configuration">The section holding the scan options.</param>
    /// <param name="configureBuilder">Optional: plugs services into the builder after the options are applied.</param>
    /// <returns>The service collection.</returns>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty.</exception>
    /// <exception cref="InvalidOperationException">A finder of that name is registered already.</exception>
    [RequiresUnreferencedCode(BindingWarning)]
    [RequiresDynamicCode(BindingWarning)]
    public static IServiceCollection AddDedup(
        this IServiceCollection services,
        string name,
        IConfiguration configuration,
        Action<DuplicateFinderBuilder, IServiceProvider>? configureBuilder = null)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        return AddDedup(services, CheckName(name), options => Bind(options, configuration), configureBuilder);
    }

    // The 8.0 binder's source generator emits interceptors that newer compilers reject (CS9270), so binding stays
    // reflection-based and says so, as Microsoft.Extensions.Options.ConfigurationExtensions does.
    private const string BindingWarning = "Binds ScanOptions with the configuration binder's reflection; bind in your own code and use AddDedup(Action<ScanOptions>) when trimming.";

    [RequiresUnreferencedCode(BindingWarning)]
    [RequiresDynamicCode(BindingWarning)]
    private static void Bind(OptionsBuilder<ScanOptions> options, IConfiguration configuration)
    {
        // A misspelt key is a setting lost, so unknown keys fail; the "Cache" child is bound (and checked) on its own.
        options.Bind(new ScanOptionsConfiguration(configuration), binder => binder.ErrorOnUnknownConfiguration = true);
        options.Services.AddOptions<CacheSettings>(options.Name)
            .Configure<IServiceProvider>((settings, services) => settings.Bind(configuration, services))
            .ValidateOnStart();
    }

    /// <summary>
    /// Gives the finders bound from configuration their hash cache: a finder whose section has a <c>Cache</c> section,
    /// <c>"Cache": { "Path": "/var/lib/app/dedup.db", "Required": true }</c>, keeps what its scans learn in the cache
    /// <paramref name="open"/> returns for that path (see <see cref="DuplicateFinderBuilder.UseCache(Dedup.Core.Caching.HashCache, bool)"/>
    /// for <c>Required</c>). Without this call a <c>Cache</c> section stops the host at start, as an unknown key does.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="open">
    /// Opens the cache of a <c>Cache:Path</c>, once per finder, for example <c>path =&gt; new SqliteHashCache(path)</c>
    /// from the Dedup.Core.Sqlite package.
    /// </param>
    /// <returns>The service collection.</returns>
    /// <exception cref="InvalidOperationException">A cache store is registered already.</exception>
    public static IServiceCollection AddDedupCache(this IServiceCollection services, Func<string, Dedup.Core.Caching.HashCache> open)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(open);
        if (services.Any(d => d.ServiceType == typeof(CacheStore)))
        {
            throw new InvalidOperationException("AddDedupCache was called twice; one cache store serves every finder's Cache section.");
        }

        services.AddSingleton(new CacheStore(open));
        return services;
    }

    private static string CheckName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return name.Length > 0 ? name : throw new ArgumentException("A finder's name cannot be empty; use the AddDedup overload without a name for the application's one finder.", nameof(name));
    }

    private static IServiceCollection AddDedup(
        IServiceCollection services,
        string? name,
        Action<OptionsBuilder<ScanOptions>> configure,
        Action<DuplicateFinderBuilder, IServiceProvider>? configureBuilder)
    {
        ArgumentNullException.ThrowIfNull(services);
        if (services.Any(d => d.ServiceType == typeof(FinderRegistration) && d.ImplementationInstance is FinderRegistration r && r.Name == name))
        {
            throw new InvalidOperationException(name is null
                ? "AddDedup was called twice for the application's finder; configure it in one call, or name a second finder: AddDedup(\"name\", ...)."
                : $"AddDedup was called twice for the finder '{name}'; configure it in one call, or give the second finder another name.");
        }

        var registration = new FinderRegistration(name, configureBuilder);
        services.AddSingleton(registration);

        // TryAddEnumerable: one validator serves every finder's options (it is called with each name).
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<ScanOptions>, ScanOptionsValidator>());
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<CacheSettings>, CacheSettingsValidator>());
        var options = services.AddOptions<ScanOptions>(name ?? Microsoft.Extensions.Options.Options.DefaultName);
        configure(options);
        options.ValidateOnStart();
        if (name is null)
        {
            services.AddSingleton(registration.CreateFinder);
        }
        else
        {
            services.AddKeyedSingleton(name, (sp, _) => registration.CreateFinder(sp));
        }

        return services;
    }
}
