namespace Dedup.Core;

/// <summary>
/// One <c>configureBuilder</c> given to <c>AddDedup</c>, kept as a service so that every call's callback is applied,
/// in registration order, to the one finder.
/// </summary>
internal sealed class BuilderCallback(Action<DuplicateFinderBuilder, IServiceProvider> configure)
{
    public Action<DuplicateFinderBuilder, IServiceProvider> Configure { get; } = configure;
}
