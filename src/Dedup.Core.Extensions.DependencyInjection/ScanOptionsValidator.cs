using Microsoft.Extensions.Options;

using Dedup.Core;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Runs <see cref="ScanOptions.Validate"/> when the host starts, so a bad setting stops the service at once, with
/// every problem listed, instead of at its first scan. Roots and drive-kind paths need not exist (each scan checks them).
/// </summary>
internal sealed class ScanOptionsValidator : IValidateOptions<ScanOptions>
{
    public ValidateOptionsResult Validate(string? name, ScanOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);

        // Each problem names its setting, which is also its configuration key ("Roots[0]" is the key "Roots:0").
        var problems = options.Validate();
        return problems.Count == 0
            ? ValidateOptionsResult.Success
            : ValidateOptionsResult.Fail(problems.Select(p => "ScanOptions." + p));
    }
}
