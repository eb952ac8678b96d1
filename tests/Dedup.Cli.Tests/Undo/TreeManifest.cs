using System.Globalization;
using System.Security.Cryptography;
using System.Text;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// What a name holds, as undo must give it back: its kind, the sha256 of its bytes (a link: of its text), the full
/// st_mode, owner, group, modification time in nanoseconds, every extended attribute, and the inode flags when non-zero.
/// Inode numbers and link counts are left out (undo makes a name an independent file again, so both may differ), and so
/// are access times (listing a folder or reading a file moves them). A folder's modification time is in: every rename in
/// a folder moves it, the forward action's and undo's alike, and undo gives it back. The folder the manifest is taken of
/// is not itself an entry (the test harness writes the journal and the trash beside the scanned tree).
/// </summary>
internal sealed record ManifestEntry(string Kind, string Content, uint Mode, uint Uid, uint Gid, long? MtimeNs, string Xattrs, int Flags)
{
    public override string ToString() =>
        string.Create(CultureInfo.InvariantCulture, $"{Kind} {Content} mode={Convert.ToString(Mode, 8)} uid={Uid} gid={Gid}")
        + (MtimeNs is { } mtime ? string.Create(CultureInfo.InvariantCulture, $" mtime={mtime}") : string.Empty)
        + (Xattrs.Length > 0 ? " xattrs={" + Xattrs + "}" : string.Empty)
        + (Flags != 0 ? string.Create(CultureInfo.InvariantCulture, $" flags=0x{Flags:X}") : string.Empty);

    /// <summary>The fields in which <paramref name="other"/> differs, one "field: this -> other" each.</summary>
    public IEnumerable<string> Differences(ManifestEntry other)
    {
        if (Kind != other.Kind)
        {
            yield return $"kind {Kind} -> {other.Kind}";
        }

        if (Content != other.Content)
        {
            yield return $"content {Content} -> {other.Content}";
        }

        if (Mode != other.Mode)
        {
            yield return $"mode {Convert.ToString(Mode, 8)} -> {Convert.ToString(other.Mode, 8)}";
        }

        if (Uid != other.Uid || Gid != other.Gid)
        {
            yield return string.Create(CultureInfo.InvariantCulture, $"owner {Uid}:{Gid} -> {other.Uid}:{other.Gid}");
        }

        if (MtimeNs != other.MtimeNs)
        {
            yield return string.Create(CultureInfo.InvariantCulture, $"mtime {MtimeNs} -> {other.MtimeNs}");
        }

        if (Xattrs != other.Xattrs)
        {
            yield return $"xattrs {{{Xattrs}}} -> {{{other.Xattrs}}}";
        }

        if (Flags != other.Flags)
        {
            yield return string.Create(CultureInfo.InvariantCulture, $"flags 0x{Flags:X} -> 0x{other.Flags:X}");
        }
    }
}

/// <summary>
/// Every name under a folder (recursively, links not followed) → its <see cref="ManifestEntry"/>, keyed by the path
/// relative to the folder as <see cref="RawFs.Show"/> writes it (one to one with the exact bytes). Names of temporary
/// files (<c>.dedup-tmp-*</c>) are listed apart in <see cref="Temporaries"/>, so a leftover is its own finding.
/// </summary>
internal sealed class TreeManifest
{
    // Layout flags the file system sets by itself (ext4 extents, inline data, hashed folders), not metadata a user set.
    private const int LayoutFlags = 0x80000 | 0x10000000 | 0x1000;
    private const string TemporaryPrefix = ".dedup-tmp-";

    private TreeManifest(SortedDictionary<string, ManifestEntry> entries, List<string> temporaries)
    {
        Entries = entries;
        Temporaries = temporaries;
    }

    public SortedDictionary<string, ManifestEntry> Entries { get; }

    public List<string> Temporaries { get; }

    /// <summary>The manifest of everything under <paramref name="root"/> but the top-level names in <paramref name="skip"/>.</summary>
    public static TreeManifest Take(string root, params string[] skip) => Take(RawFs.Bytes(root), skip);

    public static TreeManifest Take(byte[] root, params string[] skip)
    {
        var entries = new SortedDictionary<string, ManifestEntry>(StringComparer.Ordinal);
        var temporaries = new List<string>();
        Walk(root, [], skip.Select(RawFs.Bytes).ToList(), entries, temporaries);
        return new TreeManifest(entries, temporaries);
    }

    /// <summary>
    /// What differs from <paramref name="before"/> to this manifest, one line a name ("missing", "new", or the fields that
    /// changed), or an empty string when the two are equal.
    /// </summary>
    public string DiffFrom(TreeManifest before, Func<string, bool>? only = null)
    {
        var lines = new StringBuilder();
        foreach (var (name, entry) in before.Entries.Where(e => only?.Invoke(e.Key) ?? true))
        {
            if (!Entries.TryGetValue(name, out var now))
            {
                lines.AppendLine($"  missing {name} (was {entry})");
            }
            else if (entry != now)
            {
                lines.AppendLine($"  changed {name}: {string.Join("; ", entry.Differences(now))}");
            }
        }

        foreach (var (name, entry) in Entries.Where(e => (only?.Invoke(e.Key) ?? true) && !before.Entries.ContainsKey(e.Key)))
        {
            lines.AppendLine($"  new {name} ({entry})");
        }

        return lines.ToString();
    }

    private static void Walk(byte[] folder, byte[] relative, List<byte[]> skip, SortedDictionary<string, ManifestEntry> entries, List<string> temporaries)
    {
        foreach (var name in RawFs.List(folder))
        {
            if (relative.Length == 0 && skip.Any(s => s.AsSpan().SequenceEqual(name)))
            {
                continue;
            }

            var path = RawFs.Join(folder, name);
            byte[] key = relative.Length == 0 ? name : RawFs.Join(relative, name);
            if (name.AsSpan().StartsWith(Encoding.ASCII.GetBytes(TemporaryPrefix)))
            {
                temporaries.Add(RawFs.Show(key));
                continue;
            }

            entries[RawFs.Show(key)] = Describe(path);
            if (RawFs.Status(path) is { IsFolder: true })
            {
                Walk(path, key, skip, entries, temporaries);
            }
        }
    }

    private static ManifestEntry Describe(byte[] path)
    {
        var status = RawFs.Status(path) ?? throw new IOException($"{RawFs.Show(path)} vanished while the manifest was taken");
        var xattrs = string.Join(",", RawFs.Xattrs(path).Select(x => x.Key + "=" + Convert.ToBase64String(x.Value)));
        string kind;
        string content;
        var flags = 0;
        long? mtime = status.MtimeNs;
        if (status.IsLink)
        {
            kind = "link";
            content = Convert.ToHexStringLower(SHA256.HashData(RawFs.ReadLink(path)));
        }
        else if (status.IsFolder || status.IsFile)
        {
            using var handle = RawFs.OpenRead(path);
            flags = RawFs.InodeFlags(handle) & ~LayoutFlags;
            if (status.IsFolder)
            {
                kind = "folder";
                content = "-";
            }
            else
            {
                kind = "file";
                using var stream = new FileStream(handle, FileAccess.Read, 0);
                content = Convert.ToHexStringLower(SHA256.HashData(stream));
            }
        }
        else
        {
            kind = "other";
            content = "-";
        }

        return new ManifestEntry(kind, content, status.Mode, status.Uid, status.Gid, mtime, xattrs, flags);
    }
}
