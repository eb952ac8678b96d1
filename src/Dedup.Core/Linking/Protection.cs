using Dedup.Core.Folders;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// Protected folders (<see cref="DuplicateActionPlanBuilder.Protect"/>): a copy under one is never acted on, and when a
/// group has one it is the copy kept. Reference folders (<see cref="DuplicateActionPlanBuilder.Reference"/>) are
/// protected too, and a group with no copy under any of them is left alone: rmlint's <c>B // A -k -m</c>.
/// </summary>
internal sealed class Protection
{
    private readonly AbsolutePath[] _protect;
    private readonly AbsolutePath[] _reference;
    private readonly string? _unresolvedProtect;
    private readonly string? _unresolvedReference;

    private Protection(AbsolutePath[] protect, string? unresolvedProtect, AbsolutePath[] reference, string? unresolvedReference)
    {
        _protect = protect;
        _reference = reference;
        _unresolvedProtect = unresolvedProtect;
        _unresolvedReference = unresolvedReference;
    }

    /// <summary>No folder protected.</summary>
    public static Protection None { get; } = new([], null, [], null);

    /// <summary>Every protected folder, reference folders included.</summary>
    public IEnumerable<AbsolutePath> Protected => _protect.Concat(_reference);

    /// <summary>The reference folders.</summary>
    public IReadOnlyList<AbsolutePath> Reference => _reference;

    /// <summary>Folders as a user names them, resolved as the kernel resolves a <c>..</c> (see <see cref="AbsolutePath.Resolve"/>).</summary>
    public static Protection Create(IReadOnlyList<string> protect, IReadOnlyList<string> reference)
    {
        if (protect.Count == 0 && reference.Count == 0)
        {
            return None;
        }

        var protectFolders = KeepRule.ResolveFolders(protect, out var unresolvedProtect);
        var referenceFolders = KeepRule.ResolveFolders(reference, out var unresolvedReference);
        return new(protectFolders, unresolvedProtect, referenceFolders, unresolvedReference);
    }

    /// <summary>One folder, resolved already, as a protected folder (<see cref="KeepRule.PreferUnder"/> ranks files by such checks).</summary>
    public static Protection Under(AbsolutePath folder) => new([folder], null, [], null);

    /// <summary>Why the folders cannot be used (one missing, a file, out of reach), or <see langword="null"/>; checked when the planner is built.</summary>
    public string? Validate()
        => KeepRule.FolderProblem("protected folder", _protect, _unresolvedProtect)
            ?? KeepRule.FolderProblem("reference folder", _reference, _unresolvedReference);

    /// <summary>A check for one plan: the folders' identities read now, each folder of the groups looked at once.</summary>
    public ProtectionCheck Begin() => new(this);
}

/// <summary>
/// Whether a file or folder lies under a protected or reference folder, decided as for <see cref="KeepRule.PreferUnder"/>
/// by the path (any of a file's names), and on Linux also by identity: a folder counts when it, or a folder above it, is
/// the protected folder's (device, inode), links followed. So naming the folder through a symbolic link or a bind mount
/// protects it all the same.
/// </summary>
internal sealed partial class ProtectionCheck
{
    private const int UnderProtected = 1;
    private const int UnderReference = 2;

    private readonly Protection _protection;
    private readonly Dictionary<AbsolutePath, int> _verdicts = new();
    private readonly Dictionary<(ulong Device, ulong Inode), int> _identities = new();

    /// <summary>The identities of the protected folders and of every folder above one: a folder acted on whole must not hold one.</summary>
    private readonly Dictionary<(ulong Device, ulong Inode), int> _aboveIdentities = new();

    /// <summary>No folder is protected: every answer is "no" (or "referenced"), without looking at any folder.</summary>
    private readonly bool _none;

    internal ProtectionCheck(Protection protection)
    {
        _protection = protection;
        _none = !protection.Protected.Any();
        if (!_none && OperatingSystem.IsLinux())
        {
            ReadIdentities();
        }
    }

    /// <summary>Whether any name of <paramref name="file"/> lies under a protected (or reference) folder.</summary>
    public bool IsProtected(DuplicateFile file) => !_none && (Verdict(file) & UnderProtected) != 0;

    /// <summary>
    /// As <see cref="IsProtected"/>, and also when a name is a protected folder itself, by its path: the folder planner
    /// ranks whole folders by <see cref="KeepRule.PreferUnder"/>, a folder being under itself.
    /// </summary>
    public bool IsAtOrUnder(DuplicateFile file)
    {
        if (_none)
        {
            return false;
        }

        var verdict = Verdict(file);
        foreach (var name in file.OtherLinks.Prepend(file.Path))
        {
            verdict |= Flags(name, (f, p) => f == p);
        }

        return (verdict & UnderProtected) != 0;
    }

    /// <summary>Whether the group is acted on: no reference folders, or a copy under one.</summary>
    public bool IsReferenced(DuplicateGroup group)
        => _protection.Reference.Count == 0 || group.Files.Any(f => (Verdict(f) & UnderReference) != 0);

    /// <summary>Whether a folder acted on whole would touch protected files: it lies under a protected folder or holds one.</summary>
    public bool TouchesProtected(AbsolutePath folder) => !_none && ((FolderVerdict(folder) & UnderProtected) != 0 || (Holds(folder) & UnderProtected) != 0);

    /// <summary>Whether the folder group is acted on: no reference folders, or one of its folders lies under or holds one.</summary>
    public bool IsReferenced(DuplicateFolderGroup group)
        => _protection.Reference.Count == 0 || group.Folders.Any(f => ((FolderVerdict(f) | Holds(f)) & UnderReference) != 0);

    private int Verdict(DuplicateFile file)
    {
        var verdict = 0;
        foreach (var name in file.OtherLinks.Prepend(file.Path))
        {
            verdict |= name.Parent is { } folder ? FolderVerdict(folder) : 0;
        }

        return verdict;
    }

    /// <summary>Whether <paramref name="folder"/> is, or lies under, a protected (bit 1) or reference (bit 2) folder; once per folder.</summary>
    private int FolderVerdict(AbsolutePath folder)
    {
        if (_verdicts.TryGetValue(folder, out var verdict))
        {
            return verdict;
        }

        verdict = (folder.Parent is { } parent ? FolderVerdict(parent) : 0) | Flags(folder, (f, p) => f == p);
        if (_identities.Count > 0 && OperatingSystem.IsLinux() && IdentityOf(folder.ToString()) is { } identity && _identities.TryGetValue(identity, out var byIdentity))
        {
            verdict |= byIdentity;
        }

        _verdicts[folder] = verdict;
        return verdict;
    }

    /// <summary>Whether a protected (bit 1) or reference (bit 2) folder lies inside <paramref name="folder"/> (or is it).</summary>
    private int Holds(AbsolutePath folder)
    {
        var flags = Flags(folder, (f, p) => p.IsUnder(f));
        if (_aboveIdentities.Count > 0 && OperatingSystem.IsLinux() && IdentityOf(folder.ToString()) is { } identity && _aboveIdentities.TryGetValue(identity, out var byIdentity))
        {
            flags |= byIdentity;
        }

        return flags;
    }

    private int Flags(AbsolutePath folder, Func<AbsolutePath, AbsolutePath, bool> matches)
    {
        var flags = 0;
        foreach (var p in _protection.Protected)
        {
            flags |= matches(folder, p) ? UnderProtected : 0;
        }

        foreach (var r in _protection.Reference)
        {
            flags |= matches(folder, r) ? UnderReference : 0;
        }

        return flags;
    }

    /// <summary>Fills the identities (Linux).</summary>
    private partial void ReadIdentities();

    private static void Add(Dictionary<(ulong Device, ulong Inode), int> identities, (ulong Device, ulong Inode) identity, int flags)
        => identities[identity] = (identities.TryGetValue(identity, out var known) ? known : 0) | flags;

    /// <summary>The (device, inode) of the folder a path names, links followed; <see langword="null"/> when it cannot be read.</summary>
    private static partial (ulong Device, ulong Inode)? IdentityOf(string path);
}
