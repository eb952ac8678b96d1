using System.Runtime.InteropServices;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;
using Xunit.Sdk;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// A fact that is skipped (with the reason) unless an environment variable names an existing folder; in CI, where
/// .ci/run mounts them, a missing folder fails it instead (see <see cref="CiRequirement"/>).
/// </summary>
[XunitTestCaseDiscoverer("Dedup.Core.Tests.Infrastructure.RequirementFactDiscoverer", ThisTestAssembly.Name)]
public sealed class FactRequiringFolderAttribute : FactAttribute, IRequirementFact
{
    public FactRequiringFolderAttribute(string variable, string purpose)
    {
        var value = Environment.GetEnvironmentVariable(variable);
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux: links, clone and dedupe are Linux-only, and the test file systems are Linux loop mounts.";
        }
        else if (string.IsNullOrEmpty(value) || !Directory.Exists(value))
        {
            var reason = $"{variable} is not set to a mounted folder ({purpose}); run .ci/btrfs-setup.sh as root and export its output.";
            CiFailure = CiRequirement.FailureFor(reason);
            Skip = CiFailure is null ? reason : null;
        }
    }

    public string? CiFailure { get; }

    /// <summary>Whether the test must also run as root (to set security.* attributes, or to drop privileges to nobody).</summary>
    public bool RequiresRoot
    {
        get => field;
        set
        {
            field = value;
            if (value && !Environment.IsPrivilegedProcess)
            {
                Skip ??= "Needs to run as root.";
            }
        }
    }

    /// <summary>Skipped unless both variables name existing folders.</summary>
    public FactRequiringFolderAttribute(string variable, string purpose, string otherVariable, string otherPurpose)
        : this(variable, purpose)
    {
        Skip ??= new FactRequiringFolderAttribute(otherVariable, otherPurpose).Skip;
    }
}

/// <summary>
/// Tests that use the <c>DEDUP_TEST_SMALLFS</c> mount: one collection, so they never run in parallel (one of
/// them fills the file system up).
/// </summary>
[CollectionDefinition(Name)]
public sealed class SmallFsCollection
{
    public const string Name = "SmallFs";
}

/// <summary>
/// A <see cref="TempTree"/> (optionally on a given file system) plus immutable files, scanning, planning and the
/// content-safety check.
/// </summary>
public sealed class LinkTree : IDisposable
{
    private readonly TempTree _tree;
    private readonly List<string> _immutable = [];

    public LinkTree(string? baseFolder = null) => _tree = new TempTree(baseFolder);

    public string Root => _tree.Root;

    public static string? BtrfsMount => Environment.GetEnvironmentVariable("DEDUP_TEST_BTRFS");

    public static string? SmallMount => Environment.GetEnvironmentVariable("DEDUP_TEST_SMALLFS");

    public string PathOf(string relative) => _tree.PathOf(relative);

    public string Write(string relative, byte[] content) => _tree.Write(relative, content);

    /// <summary>Makes a file or folder immutable (a real EPERM even for root); undone on dispose.</summary>
    public void MakeImmutable(string full)
    {
        TempTree.Run("chattr", "+i", full);
        _immutable.Add(full);
    }

    public void MakeMutable(string full)
    {
        TempTree.Run("chattr", "-i", full);
        _immutable.Remove(full);
    }

    /// <summary>Scans the given folders (default: the whole tree) and returns the groups.</summary>
    public async Task<List<DuplicateGroup>> ScanAsync(params string[] roots)
    {
        var (groups, _) = await Scan.RunAsync(b => b.AddRoots(roots.Length == 0 ? [Root] : roots).IncludeHidden(true));
        return groups;
    }

    public static DuplicateActionPlan Plan(IEnumerable<DuplicateGroup> groups, Linker linker, params KeepRule[] rules)
    {
        var builder = new DuplicateActionPlanBuilder().UseLinker(linker);
        foreach (var rule in rules)
        {
            builder.Keep(rule);
        }

        return builder.Build().Plan(groups);
    }

    /// <summary>Every file under the given folders (default: the tree) with its bytes, following no links.</summary>
    public Dictionary<string, byte[]> Snapshot(params string[] folders)
    {
        var result = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (var folder in folders.Length == 0 ? [Root] : folders)
        {
            foreach (var file in Directory.EnumerateFiles(folder, "*", new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0 }))
            {
                if (new FileInfo(file).LinkTarget is null)
                {
                    result[file] = File.ReadAllBytes(file);
                }
            }
        }

        return result;
    }

    /// <summary>
    /// No content lost: every path of <paramref name="before"/> still reads its bytes (through links too), or is gone
    /// while another path of the snapshot still holds exactly those bytes.
    /// </summary>
    public static void AssertNoContentLost(Dictionary<string, byte[]> before)
    {
        foreach (var (path, bytes) in before)
        {
            if (File.Exists(path))
            {
                Assert.True(bytes.AsSpan().SequenceEqual(File.ReadAllBytes(path)), $"{path} no longer holds its bytes");
            }
            else
            {
                Assert.True(before.Keys.Any(p => p != path && File.Exists(p) && bytes.AsSpan().SequenceEqual(File.ReadAllBytes(p))), $"{path} is gone and no other file holds its bytes");
            }
        }
    }

    /// <summary>No file or link named like a temporary replacement anywhere in the tree.</summary>
    public void AssertNoTemporaryFiles() =>
        Assert.Empty(Directory.EnumerateFileSystemEntries(Root, ".dedup-tmp-*", new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0 }));


    public void Dispose()
    {
        foreach (var path in _immutable.ToArray())
        {
            try
            {
                TempTree.Run("chattr", "-i", path);
            }
            catch (InvalidOperationException)
            {
            }
        }

        _tree.Dispose();
    }
}

/// <summary>Test-side libc: inode numbers and FIEMAP extents.</summary>
internal static unsafe partial class TestNative
{
    private const uint FS_IOC_FIEMAP = 0xC020660B;
    private const uint FIEMAP_EXTENT_SHARED = 0x2000;

    [LibraryImport("libc", EntryPoint = "ioctl", SetLastError = true)]
    private static partial int Ioctl(int fd, ulong request, byte* argument);

    public static ulong Inode(string path)
    {
        Assert.Equal(0, FileStatusOf(path, out var status));
        return status.Ino;
    }

    public static uint LinkCount(string path)
    {
        Assert.Equal(0, FileStatusOf(path, out var status));
        return status.NLink;
    }

    public static ulong Device(string path)
    {
        Assert.Equal(0, FileStatusOf(path, out var status));
        return status.Device;
    }

    public static int FileStatusOf(string path, out Dedup.Core.Interop.StatxBuffer status) => Libc.LStat(path, out status);

    [LibraryImport("libc", EntryPoint = "lsetxattr", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int LSetXattr(string path, string name, byte[] value, nuint size, int flags);

    [LibraryImport("libc", EntryPoint = "lgetxattr", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial nint LGetXattr(string path, string name, byte[] value, nuint size);

    /// <summary>Sets an extended attribute of the file itself (<c>lsetxattr</c>).</summary>
    public static void SetXattr(string path, string name, byte[] value) =>
        Assert.True(LSetXattr(path, name, value, (nuint)value.Length, 0) == 0, $"lsetxattr {name} on {path}: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");

    /// <summary>The attribute's value, or <see langword="null"/> when the file has none of that name.</summary>
    public static byte[]? GetXattr(string path, string name)
    {
        var buffer = new byte[65536];
        var size = LGetXattr(path, name, buffer, (nuint)buffer.Length);
        return size < 0 ? null : buffer[..(int)size];
    }

    /// <summary>The file's extents as (physical offset, length, shared flag), from FS_IOC_FIEMAP.</summary>
    public static List<(ulong Physical, ulong Length, bool Shared)> Extents(string path)
    {
        const int Count = 256;
        var buffer = new byte[32 + (56 * Count)];
        using var handle = File.OpenHandle(path);
        fixed (byte* p = buffer)
        {
            *(ulong*)p = 0;                      // fm_start
            *(ulong*)(p + 8) = ulong.MaxValue;   // fm_length
            *(uint*)(p + 16) = 1;                // fm_flags: FIEMAP_FLAG_SYNC
            *(uint*)(p + 24) = Count;            // fm_extent_count
            Assert.True(Ioctl((int)handle.DangerousGetHandle(), FS_IOC_FIEMAP, p) == 0, "FIEMAP failed: " + Marshal.GetLastPInvokeError());
            var mapped = *(uint*)(p + 20);
            var extents = new List<(ulong, ulong, bool)>();
            for (var i = 0; i < mapped; i++)
            {
                var e = p + 32 + (56 * i);
                extents.Add((*(ulong*)(e + 8), *(ulong*)(e + 16), (*(uint*)(e + 40) & FIEMAP_EXTENT_SHARED) != 0));
            }

            return extents;
        }
    }
}
