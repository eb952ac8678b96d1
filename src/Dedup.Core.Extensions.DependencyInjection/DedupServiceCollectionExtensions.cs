using System.Diagnostics.CodeAnalysis;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Dedup.Core;

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
/// error sinks with <see cref="DuplicateFinder.FindAsync(Reporting.ScanCallbacks, CancellationToken)"/>.
/// </para>
/// </remarks>
public static class DedupServiceCollectionExtensions
{
    /// <summary>Logger category of the finder's log events (scans: event ids 100–105).</summary>
    public const string LoggerCategory = "Dedup.Core";

    /// <summary>Registers a <see cref="DuplicateFinder"/> configured in code.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the scan options (roots, globs, sizes, comparer, ...).</param>
    /// <param name="configureBuilder">
    /// Optional: plugs services into the builder after the options are applied, for example
    /// <c>(builder, sp) =&gt; builder.UseFileEnumerator(sp.GetRequiredService&lt;MyEnumerator&gt;())</c>.
    /// </param>
    /// <returns>The service collection.</returns>
    public static IServiceCollection AddDedup(
        this IServiceCollection services,
        Action<ScanOptions> configure,
        Action<DuplicateFinderBuilder, IServiceProvider>? configureBuilder = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        AddOptions(services).Configure(configure);
        return AddFinder(services, configureBuilder);
    }

    /// <summary>
    /// Registers a <see cref="DuplicateFinder"/> whose <see cref="ScanOptions"/> are bound from a configuration
    /// section, for example <c>builder.Configuration.GetSection("Dedup")</c> with the keys <c>Roots</c>,
    /// <c>Include</c>, <c>Exclude</c> (lists), <c>MinSize</c>, <c>MaxSize</c>, <c>IncludeHidden</c>,
    /// <c>IncludeEmptyFiles</c>, <c>FollowSymbolicLinks</c>, <c>StayOnOneFileSystem</c>, <c>Comparer</c>,
    /// <c>HashAlgorithm</c>, <c>TrustHashes</c>, <c>MediaMode</c>, <c>FolderMode</c>, <c>IgnoreFolderNames</c>,
    /// <c>MaxDegreeOfParallelism</c> and <c>DriveKinds</c> (a list of objects with <c>Path</c> and <c>Kind</c>).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The section holding the scan options.</param>
    /// <param name="configureBuilder">Optional: plugs services into the builder after the options are applied.</param>
    /// <returns>The service collection.</returns>
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
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        AddOptions(services).Bind(configuration);
        return AddFinder(services, configureBuilder);
    }

    // The 8.0 binder's source generator emits interceptors that newer compilers reject (CS9270), so binding stays
    // reflection-based and says so, as Microsoft.Extensions.Options.ConfigurationExtensions does.
    private const string BindingWarning = "Binds ScanOptions with the configuration binder's reflection; bind in your own code and use AddDedup(Action<ScanOptions>) when trimming.";

    private static OptionsBuilder<ScanOptions> AddOptions(IServiceCollection services)
    {
        // TryAddEnumerable: calling AddDedup twice must not validate (and report) everything twice.
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<ScanOptions>, ScanOptionsValidator>());
        return services.AddOptions<ScanOptions>().ValidateOnStart();
    }

    private static IServiceCollection AddFinder(IServiceCollection services, Action<DuplicateFinderBuilder, IServiceProvider>? configureBuilder)
    {
        if (configureBuilder is not null)
        {
            services.AddSingleton(new BuilderCallback(configureBuilder));
        }

        services.TryAddSingleton(CreateFinder);
        return services;
    }

    private static DuplicateFinder CreateFinder(IServiceProvider services)
    {
        var builder = new DuplicateFinderBuilder().Configure(services.GetRequiredService<IOptions<ScanOptions>>().Value);
        if (services.GetService<ILoggerFactory>() is { } loggerFactory)
        {
            builder.UseLogger(loggerFactory.CreateLogger(LoggerCategory));
        }

        foreach (var callback in services.GetServices<BuilderCallback>())
        {
            callback.Configure(builder, services);
        }

        return builder.Build();
    }
}
