using Microsoft.Extensions.Options;

namespace Dedup.Core;

/// <summary>
/// Runs the same checks as <see cref="DuplicateFinderBuilder.Build"/> on the options when the host starts, so a bad
/// setting stops the service at once instead of at its first scan. Roots need not exist (each scan checks them).
/// </summary>
internal sealed class ScanOptionsValidator : IValidateOptions<ScanOptions>
{
    public ValidateOptionsResult Validate(string? name, ScanOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        if (options.Roots.Count == 0)
        {
            // Build's own message speaks of AddRoot; someone editing appsettings.json needs the key.
            failures.Add("ScanOptions.Roots is empty: configure at least one folder to scan (configuration key \"Roots\").");
        }

        // Configuration binds a key without a value ("Roots:0" alone) as a null entry, which Configure would reject
        // with a bare ArgumentNullException; name the key instead.
        foreach (var (key, list) in new[] { ("Roots", options.Roots), ("Include", options.Include), ("Exclude", options.Exclude) })
        {
            var index = list.IndexOf(null!);
            if (index >= 0)
            {
                failures.Add($"ScanOptions.{key}[{index}] has no value (configuration key \"{key}:{index}\").");
            }
        }

        if (failures.Count > 0)
        {
            return ValidateOptionsResult.Fail(failures);
        }

        try
        {
            // A throwaway finder: Build checks everything but the roots' existence, so this has no effects. Build stops
            // at the first problem; a missing root list is reported above, so a stand-in root lets it check the rest.
            var builder = new DuplicateFinderBuilder().Configure(options);
            if (options.Roots.Count == 0)
            {
                builder.AddRoot(Path.GetTempPath());
            }

            builder.Build();
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException)
        {
            failures.Add("Invalid ScanOptions: " + e.Message.ReplaceLineEndings(" "));
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
