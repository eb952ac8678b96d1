using System.Collections.Concurrent;
using System.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Catalog;

internal sealed partial class CatalogGroupJoin
{
    /// <summary>
    /// Makes groups on one thread at a time: the files of the group it makes are its own (the scan's rows and the held
    /// groups' index are only read; the folders parsed are shared, each made once).
    /// </summary>
    private sealed class Maker(string machine, CatalogRows rows, CatalogOwnFiles? own, CatalogGroupJoin join)
    {
        private readonly ConcurrentDictionary<ReadOnlyMemory<byte>, AbsolutePath?> _folders = join._folders;
        private readonly Dictionary<AbsolutePath, AbsolutePath> _localFolders = join._localFolders;
        private readonly Func<FileIdentity, int?> _heldOf = join.HeldIndexOf;

        // One group's files while it is made (machine and identity: its first name, a list only for more), reused.
        private readonly List<(CatalogMatchRow First, AbsolutePath Name, List<AbsolutePath>? More)> _files = [];

        // The group's matches, each asked of the catalog's group once: a read's group makes a match each time one is
        // asked for (CatalogMatchRows), and the passes below read each file two or three times. Structs: this machine's
        // are made here (CatalogOwnFiles.AppendTo), one for nearly every file of a fleet's read.
        private readonly List<CatalogMatchRow> _matches = [];

        /// <summary>
        /// The group a catalog group makes: joined with the held group holding its content here (that group's index), or
        /// alone (-1, no roots: none of its files was compared here, so none is this machine's to act on);
        /// <see langword="null"/> when it is not this scan's to report.
        /// </summary>
        public (DuplicateGroup? Group, int HeldIndex) Make(CatalogGroup group)
        {
            int? held;
            if (own is not null)
            {
                // Read by content, the group holds only other machines' files: whether a held group holds one of this
                // machine's files of its content is told from the scan's digests, before its matches are made.
                held = own.FirstHeld(group, _heldOf);
                Load(group);
            }
            else
            {
                Load(group);
                held = HeldIndexOf();
            }

            if (held is null)
            {
                return (MakeFiles(mayBeHeld: false, out _) is { } alone ? new DuplicateGroup(group.Length, alone, verifiedByBytes: false) { Sha256 = group.Sha256 } : null, -1);
            }

            if (MakeFiles(mayBeHeld: true, out var heldIndex) is not { } files)
            {
                return (null, -1);
            }

            Debug.Assert(heldIndex == held, "The held group found first is the one MakeFiles joins.");
            // The local files stay as compared (verified or not, the scan's roots: local actions act on them alone).
            var local = join.Held(heldIndex);
            files.AddRange(local.Files);
            SortFiles(files);
            return (local with { Files = files, Sha256 = group.Sha256 }, heldIndex);
        }

        private void Load(CatalogGroup group)
        {
            var files = group.Files;
            _matches.Clear();
            for (var i = 0; i < files.Count; i++)
            {
                _matches.Add(CatalogMatchRow.Of(files[i]));
            }

            // A group of other machines' files only: this machine's of its content are named from the scan's own digests.
            own?.AppendTo(group, machine, _matches);
        }

        /// <summary>The held group holding the first of this machine's files in the loaded group that one holds, if any.</summary>
        private int? HeldIndexOf()
        {
            foreach (var match in _matches)
            {
                if (string.Equals(match.Machine, machine, StringComparison.Ordinal) && join.HeldIndexOf(match.Stamp.Identity) is { } index)
                {
                    return index;
                }
            }

            return null;
        }

        /// <summary>
        /// The files the loaded catalog group adds (all <see cref="DuplicateFile.MatchedBySha256"/>), and the held group holding its
        /// content on this machine (<paramref name="heldIndex"/>, -1 for none); <see langword="null"/> when it adds no file
        /// of another machine, or is fewer than two files without a held group.
        /// </summary>
        /// <remarks>
        /// One pass over the files (sorted by machine, then path), no LINQ: a fleet's group read holds a group for nearly
        /// every file. Names of one file (machine and identity) are folded as hard links; this machine's files are named from
        /// the scan's own rows, not from the paths the catalog sends (it need send none).
        /// </remarks>
        private List<DuplicateFile>? MakeFiles(bool mayBeHeld, out int heldIndex)
        {
            heldIndex = -1;
            var matches = _matches;
            var others = false;
            for (var i = 0; i < matches.Count && !others; i++)
            {
                others = !string.Equals(matches[i].Machine, machine, StringComparison.Ordinal);
            }

            if (!others || matches.Count < 2)
            {
                return null;
            }

            // This machine's identities in the group: one in most groups, so a set only from the second on (a set kept
            // across groups would clear its largest group's buckets for every group after it).
            HashSet<FileIdentity>? own = null;
            FileIdentity? firstOwn = null;
            // One entry per file (machine and identity): its first name, and a list only for a second one (hard links are
            // rare; a list per file was a fifth of what the join allocated).
            var files = _files;
            files.Clear();
            foreach (var match in matches)
            {
                if (string.Equals(match.Machine, machine, StringComparison.Ordinal))
                {
                    // This scan's own file: in a group it found itself (compared there, so not added again), or named from
                    // its listing by the whole stamp (the catalog need not send the paths it has from this scan), once per
                    // identity whatever the catalog sent.
                    var identity = match.Stamp.Identity;
                    // A group whose files no held group holds (checked by Join) is not looked up again file by file.
                    if (mayBeHeld && join.HeldIndexOf(identity) is { } index)
                    {
                        heldIndex = heldIndex < 0 ? index : heldIndex;
                        continue;
                    }

                    bool fresh;
                    if (firstOwn is not { } seen)
                    {
                        (firstOwn, fresh) = (identity, true);
                    }
                    else
                    {
                        fresh = (own ??= [seen]).Add(identity);
                    }

                    if (fresh && rows.TryGetNames(match.Stamp, out var first, out var more))
                    {
                        files.Add((match, first, more));
                    }

                    continue;
                }

                if (TryParse(match.Path) is not { } path)
                {
                    continue;
                }

                var same = -1;
                for (var k = files.Count - 1; k >= 0 && same < 0 && string.Equals(files[k].First.Machine, match.Machine, StringComparison.Ordinal); k--)
                {
                    same = files[k].First.Stamp.Identity == match.Stamp.Identity ? k : -1;
                }

                if (same >= 0)
                {
                    var entry = files[same];
                    (entry.More ??= []).Add(path);
                    files[same] = entry;
                }
                else
                {
                    files.Add((match, path, null));
                }
            }

            var mine = heldIndex >= 0;
            for (var i = 0; i < files.Count && !mine; i++)
            {
                mine = string.Equals(files[i].First.Machine, machine, StringComparison.Ordinal);
            }

            if (!mine)
            {
                // None of this machine's files is in it (any more: a rescan's early read): not this scan's to report.
                return null;
            }

            // Room for the held group's files, added by Make: growing the list for them was ~3 MiB of the making.
            var reported = new List<DuplicateFile>(files.Count + (heldIndex >= 0 ? join.Held(heldIndex).Files.Count : 0));
            var ownOnly = true;
            foreach (var (first, name, more) in files)
            {
                var (path, links) = (name, (IReadOnlyList<AbsolutePath>)[]);
                if (more is not null)
                {
                    more.Add(name);
                    more.Sort();
                    (path, links) = (more[0], more.GetRange(1, more.Count - 1));
                }

                var stamp = first.Stamp;
                reported.Add(new DuplicateFile(path, links, stamp.Identity, stamp.Length, links.Count + 1, FileTable.ToDateTime(stamp.LastWriteTimeNs))
                {
                    LastChangeTimeUtc = stamp.ChangeTimeNs == 0 ? DateTime.MinValue : FileTable.ToDateTime(stamp.ChangeTimeNs),
                    Machine = first.Machine,
                    MatchedBySha256 = true,
                });
                ownOnly &= string.Equals(first.Machine, machine, StringComparison.Ordinal);
            }

            if (ownOnly || (heldIndex < 0 && reported.Count < 2))
            {
                return null;
            }

            SortFiles(reported);
            return reported;
        }

        /// <summary>
        /// A path of some machine as this platform's path; <see langword="null"/> when it is not one (another platform's).
        /// Folders are parsed once and shared (a group read can hold every file of several machines).
        /// </summary>
        /// <remarks>
        /// Split at the last separator byte and looked up by the folder's bytes: only a folder seen for the first time is
        /// turned into text, and per file only its name is (measured in a fleet scan of 250k files matched on another
        /// machine: the whole path's text and the folder's substring per file were a third of the groups' making). A
        /// separator byte is always the separator character and the names' text is made byte by byte (UTF-8 sequences and
        /// escaped bytes never span a separator), so the parts are those the whole path's text splits into.
        /// </remarks>
        private AbsolutePath? TryParse(ReadOnlyMemory<byte> path)
        {
            var bytes = path.Span;
            var slash = bytes.LastIndexOf((byte)Path.DirectorySeparatorChar);
            if (slash < 0 || slash == bytes.Length - 1)
            {
                return null; // e.g. a Windows path seen on Linux: Parse would resolve it against the current folder
            }

            if (FolderOf(path.Slice(0, Math.Max(slash, 1))) is not { } folder) // a file at the root: the folder "/"
            {
                return null;
            }

            var name = KernelNames.GetString(bytes.Slice(slash + 1));
            return name is "." or ".." ? null : folder.Child(name);
        }

        /// <summary>
        /// A folder's path (<see langword="null"/>: none on this platform), made once: as its parent's child when the
        /// parent is known or can be made so and its own name is a plain one, else parsed whole as before. Parsing each new
        /// folder whole made every ancestor's node and name again (measured on a fleet scan of 250k files: a tenth of all it
        /// allocated).
        /// </summary>
        private AbsolutePath? FolderOf(ReadOnlyMemory<byte> folderBytes)
        {
            if (_folders.TryGetValue(folderBytes, out var folder))
            {
                return folder;
            }

            var bytes = folderBytes.Span;
            var slash = bytes.LastIndexOf((byte)Path.DirectorySeparatorChar);
            folder = null;
            // Only where a folder's parent is its path up to the last separator ("/" at the top): not a Windows drive's.
            if (Path.DirectorySeparatorChar == '/' && slash >= 0 && slash < bytes.Length - 1
                && FolderOf(folderBytes.Slice(0, Math.Max(slash, 1))) is { } parent
                && KernelNames.GetString(bytes.Slice(slash + 1)) is not ("." or "..") and var name)
            {
                folder = parent.Child(name);
            }
            else
            {
                var folderText = KernelNames.GetString(bytes);
                if (Path.IsPathRooted(folderText))
                {
                    try
                    {
                        folder = AbsolutePath.Parse(folderText);
                    }
                    catch (ArgumentException)
                    {
                        folder = null;
                    }
                }
            }

            // This scan's node for the same folder, if it listed one; another thread may have made it meanwhile: one path
            // per folder is kept.
            if (folder is not null && _localFolders.TryGetValue(folder, out var local))
            {
                folder = local;
            }

            return _folders.GetOrAdd(folderBytes, folder);
        }

        /// <summary>Byte strings compared by content.</summary>
        internal sealed class SameBytes : IEqualityComparer<ReadOnlyMemory<byte>>
        {
            public static readonly SameBytes Instance = new();

            public bool Equals(ReadOnlyMemory<byte> x, ReadOnlyMemory<byte> y) => x.Span.SequenceEqual(y.Span);

            public int GetHashCode(ReadOnlyMemory<byte> obj)
            {
    #if NET
                var hash = new HashCode();
                hash.AddBytes(obj.Span);
                return hash.ToHashCode();
    #else
                // FNV-1a
                var hash = 2166136261u;
                foreach (var b in obj.Span)
                {
                    hash = unchecked((hash ^ b) * 16777619u);
                }

                return unchecked((int)hash);
    #endif
            }
        }
    }
}
