using Dedup.Core.Enumeration;

namespace Dedup.Core.ExternalTests;

/// <summary>
/// Filling <see cref="FileIdentity"/> as a user does: from <c>statx</c>'s major and minor or from <c>stat</c>'s
/// <c>st_dev</c>, checked against glibc and against the identities the library's own enumerator reports.
/// </summary>
public sealed class FileIdentityTests
{
    // glibc's makedev(major, minor) from <sys/sysmacros.h>, printed by a C program compiled with gcc (Debian, glibc 2.x):
    // it covers the low and high bit fields of both numbers.
    [Theory]
    [InlineData(0u, 0u, 0UL)]
    [InlineData(8u, 3u, 2051UL)]
    [InlineData(259u, 255u, 66559UL)]
    [InlineData(4095u, 256u, 2096896UL)]
    [InlineData(4096u, 1193046u, 17597072408662UL)]
    [InlineData(703710u, 4294967295u, 3025855999434495UL)]
    [InlineData(4294967295u, 1u, 18446726481524555521UL)]
    public void FromUnixStat_takes_major_and_minor_out_of_glibc_st_dev(uint major, uint minor, ulong stDev)
    {
        var identity = FileIdentity.FromUnixStat(stDev, 42);

        Assert.Equal(FileIdentity.FromStatx(major, minor, 42), identity);
        Assert.Equal(((ulong)major << 32) | minor, identity.Device);
        Assert.Equal(42UL, identity.FileId);
        Assert.Equal($"{major}:{minor}/42", identity.ToString());
    }

    [LinuxFact]
    public async Task Identities_from_stat_equal_the_ones_the_library_reports()
    {
        using var tree = new TempFolder();
        var content = TempFolder.RandomBytes(10_000, 1);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("sub/b.bin", content);

        var (groups, _) = await Scans.RunAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).Build());

        var reported = Assert.Single(groups).Files.ToDictionary(f => f.Path.ToString(), f => f.Identity);
        foreach (var path in new[] { a, b })
        {
            var stat = Tools.Stat(path);
            Assert.Equal(reported[path], FileIdentity.FromUnixStat(stat.StDev, stat.Inode));
            Assert.Equal(reported[path], FileIdentity.FromStatx(stat.Major, stat.Minor, stat.Inode));
        }
    }
}
