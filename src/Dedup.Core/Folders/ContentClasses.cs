using Dedup.Core.Enumeration;
using Dedup.Core.Scanning;

namespace Dedup.Core.Folders;

/// <summary>
/// Each table row's content class: rows in one class are byte-identical (one verified group of the whole-file stage,
/// or one file under several names); every other file is a class of its own. Sets are settled in parallel; their rows
/// are disjoint, so each writes its own slots.
/// </summary>
internal sealed class ContentClasses
{
    private readonly int[] _classOf;
    private readonly int[] _rows;
    private readonly bool[] _unverified;
    private int _next = -1;

    public ContentClasses(int rowCount)
    {
        _classOf = new int[rowCount];
        _rows = new int[rowCount];
        _unverified = new bool[rowCount];
    }

    /// <summary>The row's class.</summary>
    public int Of(int row) => _classOf[row];

    /// <summary>Whether the row's file is equal to no file but itself (a class of one name).</summary>
    public bool IsUnique(int row) => _rows[_classOf[row]] < 2;

    /// <summary>Whether the row's class rests on hash equality only (<see cref="DuplicateFinderBuilder.TrustHashes(bool)"/>).</summary>
    public bool IsUnverified(int row) => _unverified[_classOf[row]];

    /// <summary>
    /// Gives the set's rows their classes: one per group found, one per other distinct file; with
    /// <paramref name="allEqual"/> (empty files, equal without a read) one for the whole set.
    /// </summary>
    public void Assign(CandidateSet set, List<SettledGroup>? groups, bool allEqual = false)
    {
        var table = set.Table!;
        Dictionary<FileIdentity, int>? grouped = null;
        if (groups is not null)
        {
            foreach (var group in groups)
            {
                var id = Interlocked.Increment(ref _next);
                _unverified[id] = !group.Verified;
                foreach (var member in group.Members)
                {
                    (grouped ??= [])[member.Primary.Identity] = id;
                }
            }
        }

        var rows = set.Rows;
        var current = -1;
        for (var k = 0; k < rows.Length; k++)
        {
            ref var row = ref table[rows[k]];
            // Rows are sorted by identity: a hard link continues the class of the row before it.
            if (k == 0 || (!allEqual && row.Identity != table[rows[k - 1]].Identity))
            {
                current = grouped is not null && grouped.TryGetValue(row.Identity, out var id) ? id : Interlocked.Increment(ref _next);
            }

            _classOf[rows[k]] = current;
            Interlocked.Increment(ref _rows[current]);
        }
    }
}
