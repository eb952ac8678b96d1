namespace Dedup.Core.Tests.Soak;

/// <summary>
/// The user's changes, seeded: each picks a name of the model, changes it on disk and in the model. Before an action
/// runs (between scan and plan, between plan and apply) every kind is used and the name is pinned. While actions run
/// only changes that make new names or move whole names are used: rewriting a name in the microseconds between an
/// action's last check and its rename is the window docs/linking.md names, not a loss the protocol can prevent.
/// </summary>
internal sealed class SoakMutator(SoakWorld world, Random random)
{
    private static long s_edits;
    private int _fresh;

    /// <summary>Kinds usable before an action runs.</summary>
    public static readonly string[] BeforeAction = ["replace", "edit-same-stamp", "truncate", "rename", "swap-link-outside", "swap-link-inside", "swap-fifo", "hard-link", "swap-folder"];

    /// <summary>Kinds safe to run while actions run (see the type's remarks).</summary>
    public static readonly string[] WhileActing = ["rename", "hard-link", "new-file", "swap-folder"];

    public List<string> Done { get; } = [];

    /// <summary>Folder prefixes (ending in '/') half of the changes aim at, when any of their files is left.</summary>
    public string[] Focus { get; set; } = [];

    /// <summary>Applies <paramref name="count"/> changes of the given kinds; returns how many found a target.</summary>
    public int Run(int count, string[] kinds)
    {
        var done = 0;
        for (var i = 0; i < count; i++)
        {
            done += Apply(kinds[random.Next(kinds.Length)]) ? 1 : 0;
        }

        return done;
    }

    /// <summary>One change of the given kind to a random file of the model; false when there was none to change.</summary>
    public bool Apply(string kind, string? target = null)
    {
        try
        {
            return ApplyLocked(kind, target);
        }
        catch (IOException) when (ActionsRunning)
        {
            // An action removed or replaced the name between the pick and the change (a rename's or link's source
            // gone): the change did not happen, and the model was not touched.
            Done.Add($"{kind}: its name went away first");
            return false;
        }
    }

    private bool ApplyLocked(string kind, string? target)
    {
        lock (world.Model)
        {
            var files = world.Model.Where(e => e.Value.Kind == EntryKind.File && File.Exists(e.Key)).Select(e => e.Key).Order(StringComparer.Ordinal).ToList();
            if (files.Count == 0)
            {
                return false;
            }

            var focused = files.Where(f => Focus.Any(p => f.StartsWith(p, StringComparison.Ordinal))).ToList();
            var path = target ?? (focused.Count > 0 && random.Next(2) == 0 ? focused[random.Next(focused.Count)] : files[random.Next(files.Count)]);
            if (!world.Model.TryGetValue(path, out var entry) || entry.Kind != EntryKind.File || !File.Exists(path))
            {
                return false;
            }

            Done.Add($"{kind} {Path.GetRelativePath(world.World, path)} (inode {entry.Inode})");
            switch (kind)
            {
                case "replace":
                    ReplaceWith(path, p => File.WriteAllBytes(p, world.RandomContent()));
                    world.Record(path, pinned: true);
                    break;
                case "edit-same-stamp":
                    {
                        // Same size, modification time put back: only the change time shows it.
                        // Eight bytes no other edit and no made content has, so two edited files never become equal
                        // again (an action could then rightly link them); shorter files are truncated instead.
                        var stamp = File.GetLastWriteTimeUtc(path);
                        using (var stream = new FileStream(path, FileMode.Open, FileAccess.ReadWrite))
                        {
                            if (stream.Length < 8)
                            {
                                stream.SetLength(stream.Length / 2);
                            }
                            else
                            {
                                stream.Write(BitConverter.GetBytes(0x5EED_0000_0000_0000L | (long)Interlocked.Increment(ref s_edits)));
                            }
                        }

                        File.SetLastWriteTimeUtc(path, stamp);
                        RecordAllNamesOf(entry.Inode);
                        break;
                    }

                case "truncate":
                    using (var stream = new FileStream(path, FileMode.Open, FileAccess.Write))
                    {
                        stream.SetLength(stream.Length / 2);
                    }

                    RecordAllNamesOf(entry.Inode);
                    break;
                case "rename":
                    {
                        var moved = path + ".moved" + _fresh++;
                        File.Move(path, moved);
                        world.Model.Remove(path);
                        world.Model[moved] = entry with { Pinned = entry.Pinned || !ActionsRunning };
                        break;
                    }

                case "swap-link-outside":
                    {
                        // A link to a file outside with the very same bytes: following it would act outside the roots.
                        var outside = Path.Combine(world.Outside, "same" + _fresh++);
                        File.WriteAllBytes(outside, entry.Bytes!);
                        world.OutsideBefore.Clear();
                        foreach (var (k, v) in world.SnapshotOutside())
                        {
                            world.OutsideBefore[k] = v;
                        }

                        ReplaceWith(path, p => File.CreateSymbolicLink(p, outside));
                        world.Record(path, pinned: true);
                        break;
                    }

                case "swap-link-inside":
                    ReplaceWith(path, p => File.CreateSymbolicLink(p, files[random.Next(files.Count)]));
                    world.Record(path, pinned: true);
                    break;
                case "swap-fifo":
                    ReplaceWith(path, SoakWorld.Libc.Mkfifo);
                    world.Record(path, pinned: true);
                    break;
                case "hard-link":
                    {
                        // While actions run, a delete may take the name away first: then there is nothing to link.
                        var link = world.NewPath("hl" + _fresh++);
                        if (!SoakWorld.Libc.TryLink(path, link))
                        {
                            Assert.True(ActionsRunning, $"link {path} {link} failed before any action ran");
                            return false;
                        }

                        world.Model[link] = entry with { Pinned = !ActionsRunning };
                        break;
                    }

                case "new-file":
                    {
                        var fresh = world.NewPath("new" + _fresh++);
                        File.WriteAllBytes(fresh, random.Next(2) == 0 ? entry.Bytes! : world.RandomContent());
                        world.Record(fresh, pinned: !ActionsRunning);
                        break;
                    }

                case "swap-folder":
                    SwapFolder(path);
                    break;
                default:
                    throw new ArgumentOutOfRangeException(nameof(kind), kind, null);
            }

            return true;
        }
    }

    /// <summary>While actions run, names are not pinned: an action may still act on the renamed name's inode first.</summary>
    public bool ActionsRunning { get; set; }

    /// <summary>
    /// The folder holding <paramref name="path"/> (never a root) is renamed aside and a link to a folder outside
    /// that holds the same names and bytes takes its place: actions must act in the folder they opened or not at all.
    /// </summary>
    private void SwapFolder(string path)
    {
        var folder = Path.GetDirectoryName(path)!;
        if (world.Roots.Contains(folder))
        {
            return;
        }

        var aside = folder + ".aside" + _fresh++;
        var decoy = Path.Combine(world.Outside, "decoy" + _fresh++);
        Directory.CreateDirectory(decoy);
        foreach (var (name, entry) in world.Model.Where(e => Path.GetDirectoryName(e.Key) == folder && e.Value.Kind == EntryKind.File).ToList())
        {
            File.WriteAllBytes(Path.Combine(decoy, Path.GetFileName(name)), entry.Bytes!);
        }

        foreach (var (k, v) in world.SnapshotOutside())
        {
            world.OutsideBefore[k] = v;
        }

        Directory.Move(folder, aside);
        File.CreateSymbolicLink(folder, decoy);
        foreach (var (name, entry) in world.Model.Where(e => e.Key.StartsWith(folder + "/", StringComparison.Ordinal)).ToList())
        {
            world.Model.Remove(name);
            world.Model[aside + name[folder.Length..]] = entry;
        }

        world.Model[folder] = SoakWorld.Read(folder, pinned: true)!;
    }

    /// <summary>Makes the replacement under a fresh name beside <paramref name="path"/> and renames it over, as editors do.</summary>
    private void ReplaceWith(string path, Action<string> make)
    {
        var temporary = path + ".swap" + _fresh++;
        make(temporary);
        File.Move(temporary, path, overwrite: true);
    }

    /// <summary>An in-place change shows under every name of the inode: each is re-read and pinned.</summary>
    private void RecordAllNamesOf(ulong inode)
    {
        // Names an action already removed or replaced no longer share the inode: what they held is checked as before.
        foreach (var name in world.Model.Where(e => e.Value.Inode == inode && e.Value.Kind == EntryKind.File).Select(e => e.Key).ToList())
        {
            if (SoakWorld.Read(name) is { Kind: EntryKind.File } now && now.Inode == inode)
            {
                world.Record(name, pinned: true);
            }
        }
    }
}
