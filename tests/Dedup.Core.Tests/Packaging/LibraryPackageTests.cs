using System.IO.Compression;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Packaging;

/// <summary>
/// What a library user installs: the packed Dedup.Core (and its DI and PostgreSQL packages) restored from a local feed into a fresh
/// net8.0 app outside the repository, which runs on a real .NET 8 runtime (self-contained) and scans a real tree.
/// The packages are packed once per class into their own artifacts folder, never touching the other tests' build.
/// </summary>
public sealed partial class LibraryPackageTests(LibraryPackageTests.PackedLibraries packed) : IClassFixture<LibraryPackageTests.PackedLibraries>
{
    [LinuxFact]
    public void Every_package_carries_docs_readme_symbols_and_metadata()
    {
        foreach (var id in new[] { "Dedup.Core", "Dedup.Core.Extensions.DependencyInjection", "Dedup.Core.Sqlite" })
        {
            using var nupkg = ZipFile.OpenRead(packed.PathOf(id, ".nupkg"));
            var entries = nupkg.Entries.Select(e => e.FullName).ToHashSet(StringComparer.Ordinal);
            foreach (var tfm in new[] { "netstandard2.0", "net8.0", "net10.0" })
            {
                Assert.Contains($"lib/{tfm}/{id}.dll", entries);
                Assert.Contains($"lib/{tfm}/{id}.xml", entries);
            }

            Assert.Contains("README.md", entries);
            AssertOwnReadme(nupkg, id);
            Assert.DoesNotContain(entries, e => e.EndsWith(".pdb", StringComparison.Ordinal)); // symbols go in the .snupkg

            var metadata = Nuspec(nupkg);
            Assert.Equal("MIT", Element(metadata, "license").Value);
            Assert.Equal("README.md", Element(metadata, "readme").Value);
            var repository = Element(metadata, "repository");
            Assert.Equal("git", repository.Attribute("type")?.Value);
            Assert.Matches("^[0-9a-f]{40}$", repository.Attribute("commit")?.Value ?? "");

            using var snupkg = ZipFile.OpenRead(packed.PathOf(id, ".snupkg"));
            Assert.Equal(
                [$"lib/net10.0/{id}.pdb", $"lib/net8.0/{id}.pdb", $"lib/netstandard2.0/{id}.pdb"],
                snupkg.Entries.Select(e => e.FullName).Where(e => e.StartsWith("lib/", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
        }
    }

    [LinuxFact]
    public void A_fresh_net8_app_runs_the_README_library_example_from_the_packed_package_and_gets_the_exact_groups()
    {
        using var work = new TempTree();
        var tree = MakeTree(work);
        var readme = File.ReadAllText(Path.Combine(RepositoryFiles.Root, "README.md"));
        var example = LibraryExample().Match(readme);
        Assert.True(example.Success, "README.md has no ```csharp block under \"## Library example\"");

        // The README's code, adapted: the root comes from args, a token is declared, and each file's hard links are
        // printed beside its first name so the exact groups can be checked.
        var code = example.Groups["code"].Value;
        code = Replace(code, ".AddRoot(\"/home/me/Pictures\")", ".AddRoot(args[0])");
        code = Replace(code, "    .AddRoot(\"/mnt/backup/Pictures\")\n", "");
        code = Replace(code, "using Dedup.Core;\n", "using Dedup.Core;\n\nvar cancellationToken = CancellationToken.None;\n");
        code = Replace(code, "string.Join(\", \", group.Files)", "string.Join(\", \", group.Files.Select(f => string.Join(\" = \", f.OtherLinks.Prepend(f.Path))))");
        var app = WriteApp(work, "app", code + AppFacts, packageReferences: [("Dedup.Core", packed.Version)]);

        var lines = BuildAndRun(app, tree);

        Assert.Equal(ExpectedGroups(tree), lines.Where(l => l.Contains(" × ", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
        Assert.Contains("8000 bytes wasted, 0 errors", lines);
        AssertRanFromThePackage(app, lines);
    }

    [LinuxFact]
    public void A_fresh_net8_app_calls_AddDedup_from_the_packed_DI_package_and_gets_the_exact_groups()
    {
        using var work = new TempTree();
        var tree = MakeTree(work);
        const string Code = """
            using Dedup.Core;
            using Microsoft.Extensions.DependencyInjection;

            var services = new ServiceCollection();
            services.AddDedup(options =>
            {
                options.Roots.Add(args[0]);
                options.Exclude.Add("**/.thumbnails/**");
                options.MinSize = 1024;
            });
            using var provider = services.BuildServiceProvider();
            var scan = provider.GetRequiredService<DuplicateFinder>().FindAsync();
            await foreach (DuplicateGroup group in scan)
                Console.WriteLine($"{group.Files.Count} × {group.Size} B: {string.Join(", ", group.Files.Select(f => string.Join(" = ", f.OtherLinks.Prepend(f.Path))))}");
            Console.WriteLine($"{scan.Summary.WastedBytes} bytes wasted, {scan.Summary.Errors.Count} errors");

            """;
        var app = WriteApp(
            work,
            "di-app",
            Code + AppFacts,
            packageReferences: [("Dedup.Core.Extensions.DependencyInjection", packed.Version), ("Microsoft.Extensions.DependencyInjection", "8.0.1")]);

        var lines = BuildAndRun(app, tree);

        Assert.Equal(ExpectedGroups(tree), lines.Where(l => l.Contains(" × ", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
        Assert.Contains("8000 bytes wasted, 0 errors", lines);
        AssertRanFromThePackage(app, lines);
        Assert.Equal(
            packed.LibraryBytes("Dedup.Core.Extensions.DependencyInjection", "net8.0"),
            File.ReadAllBytes(Path.Combine(app, "out", "Dedup.Core.Extensions.DependencyInjection.dll")));
    }

    [LinuxFact]
    public void A_net8_app_restores_the_8_0_line_of_every_library_the_packages_depend_on()
    {
        using var work = new TempTree();
        var app = WriteApp(
            work,
            "deps-app",
            "System.Console.WriteLine();\n",
            packageReferences: [("Dedup.Core", packed.Version), ("Dedup.Core.Extensions.DependencyInjection", packed.Version), ("Dedup.Core.Sqlite", packed.Version)]);

        var restore = ProcessRunner.Run("dotnet", ["restore", app], timeoutSeconds: 600);
        Assert.True(restore.ExitCode == 0, $"restore failed:\n{restore.Stdout}\n{restore.Stderr}");
        var list = ProcessRunner.Run("dotnet", ["list", app, "package", "--include-transitive"], timeoutSeconds: 600);
        Assert.True(list.ExitCode == 0, $"dotnet list package failed:\n{list.Stdout}\n{list.Stderr}");

        // "   > Microsoft.Extensions.ObjectPool      8.0.11": the last column is the resolved version.
        var resolved = list.Stdout.Split('\n')
            .Select(line => line.Trim())
            .Where(line => line.StartsWith("> ", StringComparison.Ordinal))
            .Select(line => line[2..].Split(' ', StringSplitOptions.RemoveEmptyEntries))
            .ToDictionary(columns => columns[0], columns => Version.Parse(columns[^1].Split('-')[0]), StringComparer.Ordinal);
        Assert.Contains("Microsoft.Extensions.ObjectPool", resolved.Keys);
        Assert.Contains("Microsoft.Data.Sqlite.Core", resolved.Keys);
        Assert.Contains("Microsoft.Extensions.Options", resolved.Keys);

        // An app on .NET 8 keeps the .NET 8 line of Microsoft.Extensions.* and of the BCL packages: the libraries ask for
        // the lowest version they need, and an app that wants newer ones references them itself.
        var newer = resolved
            .Where(p => p.Key.StartsWith("Microsoft.Extensions.", StringComparison.Ordinal) || p.Key.StartsWith("Microsoft.Data.Sqlite", StringComparison.Ordinal) || p.Key.StartsWith("System.", StringComparison.Ordinal))
            .Where(p => p.Value.Major > 8)
            .Select(p => $"{p.Key} {p.Value}")
            .ToList();
        Assert.True(newer.Count == 0, "a net8.0 app is given newer packages than it needs: " + string.Join(", ", newer));
    }

    // Which runtime ran the app, and which Dedup.Core it loaded.
    private const string AppFacts = """

        Console.WriteLine("runtime: " + System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription);
        Console.WriteLine("library: " + typeof(DuplicateFinder).Assembly.Location);

        """;

    /// <summary>
    /// Two groups; a hard link is one file (listed beside its first name, and a file only hard-linked to itself is no
    /// group); the excluded folder's copy and duplicates under the minimum size are left out.
    /// </summary>
    private static string MakeTree(TempTree work)
    {
        var photo = TempTree.RandomBytes(5000, 1);
        work.Write("tree/a.bin", photo);
        work.HardLink("tree/a.bin", "tree/hl.bin");
        work.Write("tree/sub/b.bin", photo);
        work.Write("tree/.thumbnails/c.bin", photo);
        var song = TempTree.RandomBytes(3000, 2);
        work.Write("tree/x.bin", song);
        work.Write("tree/deep/er/y.bin", song);
        work.Write("tree/solo.bin", TempTree.RandomBytes(4000, 3));
        work.HardLink("tree/solo.bin", "tree/solo-link.bin");
        work.Write("tree/small1", TempTree.RandomBytes(500, 4));
        work.Write("tree/small2", TempTree.RandomBytes(500, 4));
        work.Write("tree/unique.bin", TempTree.RandomBytes(5000, 5));
        return work.PathOf("tree");
    }

    private static string[] ExpectedGroups(string tree) =>
    [
        $"2 × 3000 B: {tree}/deep/er/y.bin, {tree}/x.bin",
        $"2 × 5000 B: {tree}/a.bin = {tree}/hl.bin, {tree}/sub/b.bin",
    ];

    /// <summary>
    /// A console app outside the repository: empty Directory.Build.* and Directory.Packages.props stop any central
    /// package management or shared settings from above, and its own packages folder means no cached Dedup.Core.
    /// </summary>
    private string WriteApp(TempTree work, string name, string code, (string Id, string Version)[] packageReferences)
    {
        var app = work.PathOf(name);
        work.Write($"{name}/Directory.Build.props", "<Project />");
        work.Write($"{name}/Directory.Build.targets", "<Project />");
        work.Write($"{name}/Directory.Packages.props", "<Project />");
        work.Write($"{name}/Program.cs", code);
        var references = string.Join("\n", packageReferences.Select(r => $"""    <PackageReference Include="{r.Id}" Version="{r.Version}" />"""));
        work.Write($"{name}/App.csproj", $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net8.0</TargetFramework>
                <ImplicitUsings>enable</ImplicitUsings>
                <Nullable>enable</Nullable>
                <!-- Self-contained, so the app runs on the .NET 8 runtime even where only a newer one is installed. -->
                <RuntimeIdentifier>{RuntimeInformation.RuntimeIdentifier}</RuntimeIdentifier>
                <SelfContained>true</SelfContained>
              </PropertyGroup>
              <ItemGroup>
            {references}
              </ItemGroup>
            </Project>
            """);

        // The temp feed, then the repository's own sources; Dedup.Core* may come from the temp feed only.
        var repositorySources = XDocument.Load(Path.Combine(RepositoryFiles.Root, "nuget.config"))
            .Descendants("packageSources").Elements("add").ToList();
        Assert.NotEmpty(repositorySources);
        var config = new XDocument(new XElement(
            "configuration",
            new XElement("config", new XElement("add", new XAttribute("key", "globalPackagesFolder"), new XAttribute("value", Path.Combine(app, "packages")))),
            new XElement("packageSources", new XElement("clear"), new XElement("add", new XAttribute("key", "packed"), new XAttribute("value", packed.Feed)), repositorySources),
            new XElement(
                "packageSourceMapping",
                new XElement("packageSource", new XAttribute("key", "packed"), new XElement("package", new XAttribute("pattern", "Dedup.Core")), new XElement("package", new XAttribute("pattern", "Dedup.Core.*"))),
                repositorySources.Select(s => new XElement("packageSource", new XAttribute("key", s.Attribute("key")!.Value), new XElement("package", new XAttribute("pattern", "*")))))));
        config.Save(Path.Combine(app, "nuget.config"));
        return app;
    }

    private static string[] BuildAndRun(string app, string tree)
    {
        var build = ProcessRunner.Run("dotnet", ["build", app, "-c", "Release", "-o", Path.Combine(app, "out")], timeoutSeconds: 600);
        Assert.True(build.ExitCode == 0, $"the fresh app did not build:\n{build.Stdout}\n{build.Stderr}");
        var run = ProcessRunner.Run(Path.Combine(app, "out", "App"), [tree]);
        Assert.True(run.ExitCode == 0, $"the fresh app exited {run.ExitCode}:\n{run.Stdout}\n{run.Stderr}");
        return run.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
    }

    /// <summary>The app ran on .NET 8 with the net8.0 Dedup.Core.dll from the packed .nupkg, byte for byte.</summary>
    private void AssertRanFromThePackage(string app, string[] lines)
    {
        Assert.Contains(lines, l => l.StartsWith("runtime: .NET 8.", StringComparison.Ordinal));
        var library = Path.Combine(app, "out", "Dedup.Core.dll");
        Assert.Contains("library: " + library, lines);
        Assert.Equal(packed.LibraryBytes("Dedup.Core", "net8.0"), File.ReadAllBytes(library));
    }

    [LinuxFact]
    public void The_PostgreSql_package_targets_net8_and_net10_with_docs_symbols_and_its_dependencies()
    {
        const string id = "Dedup.Core.PostgreSql";
        using var nupkg = ZipFile.OpenRead(packed.PathOf(id, ".nupkg"));
        Assert.Equal(
            [$"lib/net10.0/{id}.dll", $"lib/net10.0/{id}.xml", $"lib/net8.0/{id}.dll", $"lib/net8.0/{id}.xml"],
            nupkg.Entries.Select(e => e.FullName).Where(e => e.StartsWith("lib/", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
        Assert.Contains("README.md", nupkg.Entries.Select(e => e.FullName));
        AssertOwnReadme(nupkg, id);

        // Npgsql has no netstandard2.0 build since 8.0, so neither has this package; it depends on the packed Dedup.Core.
        var dependencies = Element(Nuspec(nupkg), "dependencies").Elements()
            .Select(group => (Tfm: group.Attribute("targetFramework")?.Value, Ids: group.Elements().Select(d => $"{d.Attribute("id")?.Value} {d.Attribute("version")?.Value}").Order(StringComparer.Ordinal).ToArray()))
            .OrderBy(group => group.Tfm, StringComparer.Ordinal).ToArray();
        Assert.Equal([("net10.0", [$"Dedup.Core {packed.Version}", "Npgsql 10.0.3"]), ("net8.0", [$"Dedup.Core {packed.Version}", "Npgsql 10.0.3"])],
            dependencies.Select(group => (group.Tfm, group.Ids)).ToArray(), new DependencyGroupComparer());

        using var snupkg = ZipFile.OpenRead(packed.PathOf(id, ".snupkg"));
        Assert.Equal(
            [$"lib/net10.0/{id}.pdb", $"lib/net8.0/{id}.pdb"],
            snupkg.Entries.Select(e => e.FullName).Where(e => e.StartsWith("lib/", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
    }

    private sealed class DependencyGroupComparer : IEqualityComparer<(string?, string[])>
    {
        public bool Equals((string?, string[]) x, (string?, string[]) y) => x.Item1 == y.Item1 && x.Item2.SequenceEqual(y.Item2);

        public int GetHashCode((string?, string[]) obj) => obj.Item1?.GetHashCode(StringComparison.Ordinal) ?? 0;
    }

    /// <summary>
    /// The package's own short README (src/ID/README.md), not the repository's: no contributor instructions, and no
    /// relative link, which a package page cannot follow.
    /// </summary>
    private static void AssertOwnReadme(ZipArchive nupkg, string id)
    {
        using var reader = new StreamReader(nupkg.GetEntry("README.md")!.Open());
        var readme = reader.ReadToEnd();
        Assert.Equal(File.ReadAllText(Path.Combine(RepositoryFiles.Root, "src", id, "README.md")), readme);
        Assert.StartsWith($"# {id}\n", readme, StringComparison.Ordinal);
        Assert.DoesNotContain("dotnet test", readme, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"\]\((?!https?://)", readme);
    }

    private static string Replace(string code, string oldValue, string newValue)
    {
        Assert.True(code.Contains(oldValue, StringComparison.Ordinal), $"the README's library example no longer contains {oldValue}");
        return code.Replace(oldValue, newValue, StringComparison.Ordinal);
    }

    private static XElement Nuspec(ZipArchive package)
    {
        using var stream = package.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal)).Open();
        return XDocument.Load(stream).Root!.Elements().Single(e => e.Name.LocalName == "metadata");
    }

    private static XElement Element(XElement metadata, string name) =>
        metadata.Elements().SingleOrDefault(e => e.Name.LocalName == name) ?? throw new Xunit.Sdk.XunitException($"the nuspec has no <{name}>");

    [GeneratedRegex(@"## Library example\s+```csharp\n(?<code>.*?)```", RegexOptions.Singleline)]
    private static partial Regex LibraryExample();

    /// <summary>Both library packages, packed once for the class into a temp feed with their own artifacts folder.</summary>
    public sealed partial class PackedLibraries : IDisposable
    {
        private readonly TempTree _work = new();

        public PackedLibraries()
        {
            Feed = _work.PathOf("feed");
            if (!OperatingSystem.IsLinux())
            {
                Version = "";
                return; // every test here is a LinuxFact
            }

            foreach (var project in new[] { "Dedup.Core", "Dedup.Core.Extensions.DependencyInjection", "Dedup.Core.PostgreSql", "Dedup.Core.Sqlite" })
            {
                string[] args = ["pack", Path.Combine(RepositoryFiles.Root, "src", project), "-c", "Release", "-o", Feed, "--artifacts-path", _work.PathOf("artifacts")];
                var (exit, stdout, stderr) = ProcessRunner.Run("dotnet", args, timeoutSeconds: 600);
                if (exit != 0)
                {
                    throw new InvalidOperationException($"dotnet {string.Join(' ', args)} failed:\n{stdout}\n{stderr}");
                }
            }

            // The version is the one packed, whatever the project says today.
            Version = Directory.GetFiles(Feed, "Dedup.Core.*.nupkg")
                .Select(f => PackedVersion().Match(Path.GetFileName(f)))
                .Single(m => m.Success).Groups["version"].Value;
        }

        public string Feed { get; }

        public string Version { get; }

        public string PathOf(string id, string extension) => Path.Combine(Feed, $"{id}.{Version}{extension}");

        public byte[] LibraryBytes(string id, string tfm)
        {
            using var package = ZipFile.OpenRead(PathOf(id, ".nupkg"));
            using var stream = package.GetEntry($"lib/{tfm}/{id}.dll")!.Open();
            using var bytes = new MemoryStream();
            stream.CopyTo(bytes);
            return bytes.ToArray();
        }

        public void Dispose() => _work.Dispose();

        [GeneratedRegex(@"^Dedup\.Core\.(?<version>\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?)\.nupkg$")]
        private static partial Regex PackedVersion();
    }
}
