namespace Dedup.Core.PostgreSql;

/// <summary>What replacing a machine's files did.</summary>
/// <param name="Files">The rows now stored for the machine.</param>
/// <param name="DigestsKept">Files (identities) that kept the digest stored under the same complete stamp before the rescan.</param>
internal sealed record CatalogReplaceResult(long Files, long DigestsKept);

/// <summary>A machine known to the catalog.</summary>
/// <param name="Name">The machine's name.</param>
/// <param name="Files">How many file rows its last scan stored.</param>
/// <param name="ScannedAt">When its last scan was stored (the server's clock).</param>
public sealed record CatalogMachine(string Name, long Files, DateTimeOffset ScannedAt);
