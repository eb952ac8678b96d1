using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// Rebuilds a <see cref="DuplicateGroup"/> from an earlier report (such as <c>dedup find --format json</c>): each
/// name is looked up again from the report's root that holds it, without following a symbolic link below that
/// root, and kept only while it still leads to the very file the report describes (device, inode, size,
/// modification and change time). Content is not compared here: every linker re-verifies it before acting. The public
/// way in is <see cref="Linking.DuplicateReportExtensions.RecheckGroups"/>.
/// </summary>
internal static class ReportedDuplicates
{
    /// <summary>Rebuilds one reported group from the files as they are now.</summary>
    /// <param name="roots">The report's roots, with the identities they had when scanned; every name must lie under one.</param>
    /// <param name="size">The size the report gives for the group.</param>
    /// <param name="files">Every name listed in the group (primary paths and hard links), each with its reported identity.</param>
    /// <param name="problems">Names left out and why (outside the roots, reached through a link, missing, another file, changed).</param>
    /// <returns>The group, or <see langword="null"/> when fewer than two distinct files remain.</returns>
    /// <exception cref="NotSupportedException">Not running on Linux.</exception>
    public static DuplicateGroup? FromReport(IReadOnlyList<ScanRoot> roots, long size, IEnumerable<ReportedFile> files, out IReadOnlyList<string> problems)
    {
        ArgumentNullException.ThrowIfNull(roots);
        ArgumentNullException.ThrowIfNull(files);
        // Stryker disable once Statement,String,Block : reached off Linux only (the Wine test project checks it)
        if (!OperatingSystem.IsLinux())
        {
            throw new NotSupportedException("Reading reported duplicates is implemented for Linux only.");
        }

        using var rootHandles = new RootHandles(); // each root opened and checked once for the group
        var issues = new List<string>();
        var byIdentity = new Dictionary<FileIdentity, List<(ReportedFile File, StatxBuffer Status)>>();
        var seen = new HashSet<AbsolutePath>();
        foreach (var file in files)
        {
            ArgumentNullException.ThrowIfNull(file);
            if (!seen.Add(file.Path))
            {
                continue;
            }

            var problem = LookUp(roots, size, file, rootHandles, out var status);
            if (problem is not null)
            {
                issues.Add($"{file.Path.ToDisplayString()}: {problem}");
                continue;
            }

            if (!byIdentity.TryGetValue(file.Identity, out var names))
            {
                byIdentity[file.Identity] = names = [];
            }

            names.Add((file, status));
        }

        problems = issues;
        if (byIdentity.Count < 2)
        {
            return null;
        }

        var duplicates = byIdentity
            .Select(pair =>
            {
                var names = pair.Value.OrderBy(n => n.File.Path).ToArray();
                var first = names[0];
                return new DuplicateFile(first.File.Path, names.Skip(1).Select(n => n.File.Path).ToArray(), pair.Key, size, (int)first.Status.NLink, first.Status.LastWriteTimeUtc)
                {
                    LastChangeTimeUtc = first.Status.ChangeTimeUtc,
                    OwnerId = first.Status.Uid,
                    GroupId = first.Status.Gid,
                    Mode = first.Status.Mode & OwnerAndMode.Permissions,
                };
            })
            .OrderBy(f => f.Path)
            .ToArray();
        return new DuplicateGroup(size, duplicates, verifiedByBytes: false) { Roots = roots };
    }

    /// <summary>Why the reported name no longer leads to the reported file, or <see langword="null"/> when it does.</summary>
    [SupportedOSPlatform("linux")]
    private static string? LookUp(IReadOnlyList<ScanRoot> roots, long size, ReportedFile file, RootHandles rootHandles, out StatxBuffer status)
    {
        status = default;
        if (file.Path.Parent is not { } parent)
        {
            return "not a file name";
        }

        using var folder = FolderHandle.TryOpenBeneath(roots, parent, out var problem, rootHandles, file.Path);
        if (folder is null)
        {
            return problem;
        }

        var errno = Libc.LStatAt(folder.Fd, file.Path.Name, out status);
        if (errno != 0)
        {
            return Libc.Message(errno);
        }

        if (!status.IsRegularFile)
        {
            return status.IsSymbolicLink ? "is now a symbolic link" : "is no longer a regular file";
        }

        if (status.Device != file.Identity.Device || status.Ino != file.Identity.FileId)
        {
            return $"is now another file (device and inode {new FileIdentity(status.Device, status.Ino)}, the report says {file.Identity})";
        }

        if ((long)status.Size != size || file.Length != size)
        {
            return $"size is now {status.Size}, the report says {size}";
        }

        if (status.LastWriteTimeUtc != file.LastWriteTimeUtc)
        {
            return "modified since the report";
        }

        return file.LastChangeTimeUtc != DateTime.MinValue && status.ChangeTimeUtc != file.LastChangeTimeUtc
            ? "changed since the report (its change time moved: written, linked, renamed or its permissions changed)"
            : null;
    }
}

/// <summary>One name of a file as an earlier report listed it, with the identity the report recorded.</summary>
internal sealed record ReportedFile
{
    private readonly AbsolutePath _path = null!;

    /// <summary>Creates a reported name.</summary>
    /// <param name="path">The name as reported.</param>
    /// <param name="identity">The file's device and inode when reported.</param>
    /// <param name="length">The file's size when reported.</param>
    /// <param name="lastWriteTimeUtc">The modification time when reported.</param>
    /// <param name="lastChangeTimeUtc">The change time (ctime) when reported, to 100 ns; <see cref="DateTime.MinValue"/> when not recorded.</param>
    public ReportedFile(AbsolutePath path, FileIdentity identity, long length, DateTime lastWriteTimeUtc, DateTime lastChangeTimeUtc)
    {
        Path = path;
        Identity = identity;
        Length = length;
        LastWriteTimeUtc = lastWriteTimeUtc;
        LastChangeTimeUtc = lastChangeTimeUtc;
    }

    /// <summary>The name as reported.</summary>
    public AbsolutePath Path
    {
        get => _path;
        init => _path = value ?? throw new ArgumentNullException(nameof(value));
    }

    /// <summary>The file's device and inode when reported.</summary>
    public FileIdentity Identity { get; init; }

    /// <summary>The file's size when reported.</summary>
    public long Length { get; init; }

    /// <summary>The modification time when reported, UTC.</summary>
    public DateTime LastWriteTimeUtc { get; init; }

    /// <summary>The change time when reported, UTC; <see cref="DateTime.MinValue"/> when not recorded.</summary>
    public DateTime LastChangeTimeUtc { get; init; }

    /// <inheritdoc />
    public override string ToString() => $"{Path} ({Identity})";
}
