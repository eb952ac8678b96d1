using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Topology;

namespace Dedup.Core;

/// <summary>One problem of a <see cref="ScanOptions"/>: its text names the setting; <see cref="Exception"/> is what Build throws when it is the only one.</summary>
/// <param name="Text">The problem, naming the setting and its value (<see cref="ScanOptions.Validate"/> lists these).</param>
/// <param name="Exception">
/// The exception the builder threw for this problem alone before all problems were collected, kept so a single bad
/// setting fails as it always did (type, parameter name and message).
/// </param>
internal sealed record SettingProblem(string Text, Func<Exception> Exception);

/// <summary>
/// The one validator of <see cref="ScanOptions"/>, used by <see cref="ScanOptions.Validate"/>, by
/// <see cref="DuplicateFinderBuilder.Build"/> and (through <see cref="ScanOptions.Validate"/>) by the DI package's
/// start-up check. Plain code, no reflection or attributes, so it runs the same trimmed or AOT; it reads no file.
/// </summary>
internal static class ScanOptionsValidation
{
    public static List<SettingProblem> Problems(ScanOptions options)
    {
        var problems = new List<SettingProblem>();
        if (options.Roots.Count == 0)
        {
            problems.Add(new("Roots is empty: add at least one folder to scan.", static () => new InvalidOperationException("Add at least one folder to scan with AddRoot before calling Build.")));
        }

        for (var i = 0; i < options.Roots.Count; i++)
        {
            RootProblem(problems, options.Roots[i], i);
        }

        GlobProblems(problems, nameof(ScanOptions.Include), options.Include);
        GlobProblems(problems, nameof(ScanOptions.Exclude), options.Exclude);
        SizeProblems(problems, options.MinSize, options.MaxSize);
        if (options.MaxDegreeOfParallelism is { } degree and (< 1 or > DuplicateFinderBuilder.MaxDegreeOfParallelismLimit))
        {
            var reason = $"the degree of parallelism must be at least 1 and at most {DuplicateFinderBuilder.MaxDegreeOfParallelismLimit}.";
            problems.Add(new($"MaxDegreeOfParallelism is {degree}: {reason}", () => new ArgumentOutOfRangeException("maxDegreeOfParallelism", degree, Capitalized(reason))));
        }

        ComparisonProblems(problems, options);
        for (var i = 0; i < options.DriveKinds.Count; i++)
        {
            DriveKindProblem(problems, options.DriveKinds[i], i);
        }

        return problems;
    }

    /// <summary>The exception Build throws: the problem's own when it is the only one, else one listing them all.</summary>
    public static Exception ToException(IReadOnlyList<SettingProblem> problems) => problems.Count == 1
        ? problems[0].Exception()
        : new ArgumentException($"The scan settings have {problems.Count} problems:{Environment.NewLine}" + string.Join(Environment.NewLine, problems.Select(p => "- " + p.Text)));

    private static void RootProblem(List<SettingProblem> problems, string? root, int index)
    {
        if (root is null)
        {
            problems.Add(NoValue($"Roots[{index}]"));
        }
        else if (string.IsNullOrWhiteSpace(root))
        {
            problems.Add(new($"Roots[{index}] is empty: a root path must not be empty.", static () => new ArgumentException("A root path must not be empty.")));
        }
        else if (root.Contains('\0', StringComparison.Ordinal))
        {
            var escaped = PathText.Escape(root);
            problems.Add(new($"Roots[{index}] is '{escaped}': it contains a NUL character.", () => new ArgumentException($"The root path '{escaped}' contains a NUL character.")));
        }
    }

    private static void GlobProblems(List<SettingProblem> problems, string setting, IList<string> globs)
    {
        for (var i = 0; i < globs.Count; i++)
        {
            var glob = globs[i];
            if (glob is null)
            {
                problems.Add(NoValue($"{setting}[{i}]"));
            }
            else if (GlobPattern.Problem(glob) is { } problem)
            {
                problems.Add(new($"{setting}[{i}] is '{glob}': {problem}", () => new ArgumentException(problem, "text")));
            }
        }
    }

    private static void SizeProblems(List<SettingProblem> problems, long min, long? maxSize)
    {
        if (min < 0)
        {
            problems.Add(new($"MinSize is {min}: the minimum size must not be negative.", () => new ArgumentOutOfRangeException("minSize", min, "The minimum size must not be negative.")));
        }

        if (maxSize is { } max && max < min)
        {
            problems.Add(new($"MaxSize is {max}: it is smaller than MinSize ({min}).", () => new ArgumentOutOfRangeException("maxSize", max, $"The maximum size ({max}) is smaller than the minimum size ({min}).")));
        }
    }

    private static void ComparisonProblems(List<SettingProblem> problems, ScanOptions options)
    {
        var name = options.Comparer;
        if (name is null)
        {
            problems.Add(NoValue(nameof(ScanOptions.Comparer)));
        }
        else if (ComparerStrategies.TryFromName(name) is null)
        {
            problems.Add(new($"Comparer is '{name}': expected hybrid, hash, vectorized or bytewise.", () => new ArgumentException(ComparerStrategies.UnknownName(name), "name")));
        }

        var algorithm = options.HashAlgorithm;
        if (algorithm is not (DuplicateHashAlgorithm.XxHash128 or DuplicateHashAlgorithm.XxHash3 or DuplicateHashAlgorithm.Sha256))
        {
            problems.Add(new($"HashAlgorithm is {algorithm}: unknown hash algorithm.", () => new ArgumentOutOfRangeException("hashAlgorithm", algorithm, "Unknown hash algorithm.")));
        }
        else if (options.TrustHashes && algorithm == DuplicateHashAlgorithm.XxHash3)
        {
            problems.Add(new(
                "TrustHashes is set with HashAlgorithm XxHash3: trusting hashes needs at least 128 bits (XxHash128 or Sha256).",
                static () => new ArgumentException("TrustHashes needs a hash of at least 128 bits: use XxHash128 or Sha256, not the 64-bit XxHash3.")));
        }

        if (options.FolderMode && options.MediaMode)
        {
            problems.Add(new(
                "FolderMode and MediaMode are both set: they cannot be combined, folders are compared by whole-file contents.",
                static () => new ArgumentException("Folder mode and media mode cannot be combined: folders are compared by whole-file contents.")));
        }
    }

    private static void DriveKindProblem(List<SettingProblem> problems, DriveKindSetting? setting, int index)
    {
        if (setting is null)
        {
            problems.Add(NoValue($"DriveKinds[{index}]"));
            return;
        }

        if (string.IsNullOrWhiteSpace(setting.Path))
        {
            problems.Add(new($"DriveKinds[{index}].Path is empty: name a path on the device.", static () => new ArgumentException("A drive kind's path must not be empty.", "path")));
        }
        else if (setting.Path.Contains('\0', StringComparison.Ordinal))
        {
            var escaped = PathText.Escape(setting.Path);
            problems.Add(new($"DriveKinds[{index}].Path is '{escaped}': it contains a NUL character.", () => new ArgumentException($"The drive kind path '{escaped}' contains a NUL character.", "path")));
        }

        var kind = setting.Kind;
        if (kind is not (DriveKind.Unknown or DriveKind.Ssd or DriveKind.Hdd or DriveKind.Network or DriveKind.Ram))
        {
            problems.Add(new($"DriveKinds[{index}].Kind is {kind}: unknown drive kind.", () => new ArgumentOutOfRangeException("kind", kind, "Unknown drive kind.")));
        }
    }

    private static SettingProblem NoValue(string setting) =>
        new($"{setting} has no value.", () => new ArgumentException($"{setting} has no value."));

    private static string Capitalized(string text) => char.ToUpperInvariant(text[0]) + text.Substring(1);
}
