namespace Dedup.Core.Comparison;

/// <summary>The hash used where the comparison hashes content.</summary>
public enum DuplicateHashAlgorithm
{
    /// <summary>XXH3, 128-bit: the default; tens of GB/s per core.</summary>
    XxHash128,

    /// <summary>XXH3, 64-bit: slightly faster; not accepted with <see cref="DuplicateFinderBuilder.TrustHashes(bool)"/>.</summary>
    XxHash3,

    /// <summary>SHA-256: cryptographic, for users who must rule out engineered collisions.</summary>
    Sha256,
}
