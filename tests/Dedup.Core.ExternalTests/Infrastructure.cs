using System.Diagnostics;
using System.Globalization;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.ExternalTests;

/// <summary>A real temporary folder for one test, deleted afterwards.</summary>
public sealed class TempFolder : IDisposable
{
    public TempFolder(string? baseFolder = null)
    {
        Root = Path.Combine(baseFolder ?? Path.Combine(Path.GetTempPath(), "dedup-external-tests"), Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Root);
    }

    public string Root { get; }

    public string Write(string relative, byte[] content)
    {
        var full = Path.Combine(Root, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        File.WriteAllBytes(full, content);
        return full;
    }

    public string Write(string relative, string content) => Write(relative, System.Text.Encoding.UTF8.GetBytes(content));

    public string HardLink(string existing, string link)
    {
        var full = Path.Combine(Root, link);
        Tools.Run("ln", Path.Combine(Root, existing), full);
        return full;
    }

    public static byte[] RandomBytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}

/// <summary>Real command-line tools as oracles: GNU <c>find</c> and <c>stat</c> report what the C library's <c>stat</c> gives.</summary>
public static class Tools
{
    public static string Run(string program, params string[] arguments)
    {
        var start = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEnd();
        var error = process.StandardError.ReadToEnd();
        process.WaitForExit();
        Assert.True(process.ExitCode == 0, $"{program} failed: {error}");
        return output;
    }

    /// <summary>Writes a backup manifest of <paramref name="folder"/> as the sample documents it (GNU find's <c>%D %i %n %P</c>).</summary>
    public static string WriteManifest(string folder)
    {
        var manifest = folder + ".manifest";
        File.WriteAllText(manifest, Run("find", folder, "-type", "f", "-printf", "%D %i %n %P\\n"));
        return manifest;
    }

    /// <summary><c>stat</c>'s raw <c>st_dev</c>, the device's major and minor, and the inode of a path (GNU stat's <c>%d</c>, <c>%Hd</c>, <c>%Ld</c>, <c>%i</c>).</summary>
    public static (ulong StDev, uint Major, uint Minor, ulong Inode) Stat(string path)
    {
        var fields = Run("stat", "-c", "%d %Hd %Ld %i", path).Split(' ', StringSplitOptions.TrimEntries);
        return (ulong.Parse(fields[0], CultureInfo.InvariantCulture), uint.Parse(fields[1], CultureInfo.InvariantCulture),
            uint.Parse(fields[2], CultureInfo.InvariantCulture), ulong.Parse(fields[3], CultureInfo.InvariantCulture));
    }

    /// <summary>
    /// A folder to create test trees in whose device has a <c>st_dev</c> that differs from the library's encoding (not major 0
    /// with a minor below 256, where both encodings give the same number): the temp folder, else the small ext4 mount of
    /// <c>.ci/btrfs-setup.sh</c>; <see langword="null"/> when neither qualifies.
    /// </summary>
    public static string? FolderWithDistinctStatDevice()
    {
        foreach (var candidate in new[] { Path.GetTempPath(), Environment.GetEnvironmentVariable("DEDUP_TEST_SMALLFS") })
        {
            if (!string.IsNullOrEmpty(candidate) && Directory.Exists(candidate))
            {
                var stat = Stat(candidate);
                if (stat.StDev != FileIdentity.FromStatx(stat.Major, stat.Minor, 0).Device)
                {
                    return candidate;
                }
            }
        }

        return null;
    }
}

/// <summary>A fact that runs only on Linux (where scans check file identities); otherwise skipped with the reason.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class LinuxFactAttribute : FactAttribute
{
    private string? _skip;

    /// <summary>Whether the test needs a folder whose raw <c>st_dev</c> differs from the library's device encoding.</summary>
    public bool NeedsDistinctStatDevice { get; set; }

    public override string? Skip
    {
        get => _skip ?? (!OperatingSystem.IsLinux() ? "Needs Linux: only there does a scan check file identities."
            : NeedsDistinctStatDevice && Tools.FolderWithDistinctStatDevice() is null
                ? "Needs a folder whose device has major > 0 or minor > 255 (the temp folder's st_dev equals the library's encoding; set DEDUP_TEST_SMALLFS with .ci/btrfs-setup.sh)."
                : null);
        set => _skip = value;
    }
}

/// <summary>An enumerator over a fixed list, as a program with its own catalogue of files would write one.</summary>
public sealed class ListEnumerator(IReadOnlyList<ScannedFile> files) : IFileEnumerator
{
    public async IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        await Task.Yield();
        foreach (var file in files)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return file;
        }
    }

    /// <summary>The files of a <see cref="Tools.WriteManifest"/> manifest, each identity made by <paramref name="identity"/> from (st_dev, inode, line number).</summary>
    public static ListEnumerator FromManifest(string folder, string manifest, Func<ulong, ulong, int, FileIdentity> identity) =>
        new(File.ReadAllLines(manifest).Select((line, index) =>
        {
            var fields = line.Split(' ', 4);
            var path = AbsolutePath.Parse(Path.Join(folder, fields[3]));
            var info = new FileInfo(path.ToString());
            return new ScannedFile(path, info.Length, identity(ulong.Parse(fields[0], CultureInfo.InvariantCulture), ulong.Parse(fields[1], CultureInfo.InvariantCulture), index + 1),
                int.Parse(fields[2], CultureInfo.InvariantCulture), info.LastWriteTimeUtc);
        }).ToList());
}

/// <summary>Runs a finder to the end.</summary>
public static class Scans
{
    public static async Task<(List<DuplicateGroup> Groups, ScanSummary Summary)> RunAsync(DuplicateFinder finder)
    {
        var scan = finder.FindAsync();
        var groups = new List<DuplicateGroup>();
        await foreach (var group in scan)
        {
            groups.Add(group);
        }

        return (groups, scan.Summary);
    }

    /// <summary>Each group as its files' paths (every name, hard links included) relative to <paramref name="root"/>, sorted and joined by " | "; groups sorted.</summary>
    public static List<string> Canonical(IEnumerable<DuplicateGroup> groups, string root) =>
        groups.Select(g => string.Join(" | ", g.Files.SelectMany(f => f.OtherLinks.Prepend(f.Path)).Select(p => Path.GetRelativePath(root, p.ToString())).Order(StringComparer.Ordinal)))
            .Order(StringComparer.Ordinal)
            .ToList();
}
