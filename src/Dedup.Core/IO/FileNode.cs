using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.IO;

/// <summary>
/// One distinct file (identity) among the candidates, with every name the scan found for it. Whether it is still in
/// the scan is the scan's record (<see cref="LiveFiles"/>), not the node's.
/// </summary>
internal sealed class FileNode
{
    public FileNode(ScannedFile primary)
    {
        Primary = primary;
    }

    /// <summary>The name used to open the file (the first one found).</summary>
    public ScannedFile Primary { get; }

    /// <summary>Physical offset of the first extent (rotational disks only), or -1 when unknown.</summary>
    public long PhysicalOffset { get; set; } = -1;

    /// <summary>Further names of the same file (hard links), or <see langword="null"/>.</summary>
    public List<AbsolutePath>? OtherNames { get; private set; }

    public void AddName(AbsolutePath path)
    {
        if (path.Equals(Primary.Path) || (OtherNames?.Contains(path) ?? false))
        {
            return; // Overlapping roots list the same name twice.
        }

        (OtherNames ??= []).Add(path);
    }

    /// <summary>The change time the last check before reporting saw (Linux), for reports; <see cref="DateTime.MinValue"/> until then.</summary>
    public DateTime LastChangeTimeUtc { get; set; }

    /// <summary>
    /// Whether a check through the file's descriptor found it unchanged and nothing was read of it since: a catalog scan's
    /// digest check and its group's last check then make one <c>statx</c>, not two (each is a check after the last read).
    /// </summary>
    public bool CheckedSinceRead { get; set; }

    /// <summary>Owner, group and permission bits as that check saw them (Linux), for <see cref="DuplicateFile.OwnerId"/>; <see langword="null"/> until then.</summary>
    public (uint Owner, uint Group, int Mode)? Access { get; set; }

    public DuplicateFile ToDuplicateFile(string? machine = null)
    {
        var file = Primary;
        if (OtherNames is null)
        {
            return new DuplicateFile(file.Path, [], file.Identity, file.Length, file.LinkCount, file.LastWriteTimeUtc) { LastChangeTimeUtc = LastChangeTimeUtc, OwnerId = Access?.Owner, GroupId = Access?.Group, Mode = Access?.Mode, Machine = machine };
        }

        var names = new List<AbsolutePath>(OtherNames.Count + 1) { file.Path };
        names.AddRange(OtherNames);
        names.Sort();
        return new DuplicateFile(names[0], names.GetRange(1, names.Count - 1), file.Identity, file.Length, file.LinkCount, file.LastWriteTimeUtc) { LastChangeTimeUtc = LastChangeTimeUtc, OwnerId = Access?.Owner, GroupId = Access?.Group, Mode = Access?.Mode, Machine = machine };
    }
}
