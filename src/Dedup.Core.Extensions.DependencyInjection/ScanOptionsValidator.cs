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
        if (options.Roots.Count == 0)
        {
            // Build's own message speaks of AddRoot; someone editing appsettings.json needs the key.
            return ValidateOptionsResult.Fail("ScanOptions.Roots is empty: configure at least one folder to scan (configuration key \"Roots\").");
        }

        try
        {
            // A throwaway finder: Build validates without touching the roots, so this is cheap and has no effects.
            new DuplicateFinderBuilder().Configure(options).Build();
            return ValidateOptionsResult.Success;
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException)
        {
            return ValidateOptionsResult.Fail($"Invalid ScanOptions: {e.Message}");
        }
    }
}
