using Dedup.Core.Comparison.Strategies;

namespace Dedup.Core.Comparison;

/// <summary>The built-in comparison strategies.</summary>
public static class ComparerStrategies
{
    /// <summary>A naive byte loop, files read in step: the baseline the benchmarks compare against.</summary>
    public static IComparerStrategy Bytewise { get; } = new ChunkCompareStrategy("bytewise", ChunkMatchMode.Bytewise);

    /// <summary>Vectorized compare (<c>SequenceEqual</c>), files read in step with early exit.</summary>
    public static IComparerStrategy Vectorized { get; } = new ChunkCompareStrategy("vectorized", ChunkMatchMode.Vectorized);

    /// <summary>Each file hashed whole with the chosen algorithm, then groups confirmed byte for byte.</summary>
    public static IComparerStrategy Hashing { get; } = new HashingStrategy();

    /// <summary>
    /// The default: groups of two or three compared chunk by chunk without hashing; groups of 4–64 read in step,
    /// each chunk compared with the first class's and hashed only when it differs, to find its class among the others
    /// (confirmed by bytes), so each file is read once; larger groups hashed whole, then confirmed by bytes.
    /// </summary>
    public static IComparerStrategy Hybrid { get; } = new HybridStrategy();

    /// <summary>Looks a built-in strategy up by name (<c>bytewise</c>, <c>vectorized</c>, <c>hash</c>, <c>hybrid</c>).</summary>
    /// <param name="name">The name, case-insensitive.</param>
    /// <returns>The strategy.</returns>
    /// <exception cref="ArgumentException">The name is not a built-in strategy.</exception>
    public static IComparerStrategy FromName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return TryFromName(name) ?? throw new ArgumentException(UnknownName(name), nameof(name));
    }

    /// <summary>The built-in strategy named <paramref name="name"/> (case-insensitive), or <see langword="null"/>.</summary>
    internal static IComparerStrategy? TryFromName(string name) => name.ToLowerInvariant() switch
    {
        "bytewise" => Bytewise,
        "vectorized" => Vectorized,
        "hash" or "hashing" => Hashing,
        "hybrid" => Hybrid,
        _ => null,
    };

    internal static string UnknownName(string name) => $"Unknown comparer strategy '{name}'; expected hybrid, hash, vectorized or bytewise.";

    private sealed class ChunkCompareStrategy(string name, ChunkMatchMode mode) : IComparerStrategy
    {
        public string Name => name;

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            ArgumentNullException.ThrowIfNull(set);
            var members = AllIndices(set);
            if (members.Count <= LockstepPartitioner.MaxFiles)
            {
                LockstepPartitioner.Partition(set, members, mode, cancellationToken);
            }
            else
            {
                PairwisePartitioner.Partition(set, members, mode, cancellationToken);
            }
        }
    }

    private sealed class HashingStrategy : IComparerStrategy
    {
        public string Name => "hash";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            ArgumentNullException.ThrowIfNull(set);
            WholeFileHashPartitioner.Partition(set, AllIndices(set), cancellationToken);
        }
    }

    private sealed class HybridStrategy : IComparerStrategy
    {
        private const int ByteCompareMaxFiles = 3;

        public string Name => "hybrid";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            ArgumentNullException.ThrowIfNull(set);
            var members = AllIndices(set);
            if (members.Count <= ByteCompareMaxFiles)
            {
                LockstepPartitioner.Partition(set, members, ChunkMatchMode.Vectorized, cancellationToken);
            }
            else if (members.Count <= LockstepPartitioner.MaxFiles)
            {
                LockstepPartitioner.Partition(set, members, ChunkMatchMode.HashIndexed, cancellationToken);
            }
            else
            {
                WholeFileHashPartitioner.Partition(set, members, cancellationToken);
            }
        }
    }

    private static List<int> AllIndices(ComparisonSet set)
    {
        var list = new List<int>(set.Count);
        for (var i = 0; i < set.Count; i++)
        {
            list.Add(i);
        }

        return list;
    }
}
