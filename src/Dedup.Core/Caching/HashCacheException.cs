namespace Dedup.Core.Caching;

/// <summary>
/// A hash cache made required (<see cref="DuplicateFinderBuilder.UseCache(HashCache, bool)"/>) could not be read or
/// saved, or its store reported it damaged. <see cref="Exception.InnerException"/> is the store's own exception when
/// there was one.
/// </summary>
public sealed class HashCacheException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">What went wrong, naming the cache.</param>
    /// <param name="innerException">The store's exception, or <see langword="null"/>.</param>
    public HashCacheException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }
}
