using Dedup.Core.Catalog;

namespace Dedup.Core.PostgreSql;

/// <summary>A machine of the fleet, as <see cref="PostgresCatalog.GetFleetMachinesAsync"/> lists it.</summary>
public sealed record FleetMachine
{
    /// <summary>The machine's name.</summary>
    public required string Name { get; init; }

    /// <summary>When its last scan was stored (the server's clock).</summary>
    public required DateTimeOffset ScannedAt { get; init; }

    /// <summary>The file rows (names) its last scan stored.</summary>
    public required long Files { get; init; }

    /// <summary>
    /// Its files (identities; hard links of one file count once) that other machines asked a SHA-256 of: stored
    /// without one, of a size no other machine held when this machine last scanned, which another machine now holds.
    /// They may match files of other machines once this machine scans again (each is hashed then). Counted from the
    /// catalog's digest requests, which scans of schema 4 and later record.
    /// </summary>
    public required long PendingDigests { get; init; }
}

/// <summary>
/// Files of two or more machines with the same size and SHA-256, read straight from the catalog by
/// <see cref="PostgresCatalog.ReadFleetGroupsAsync"/>: duplicates by digest, not compared byte by byte.
/// </summary>
public sealed record FleetGroup
{
    /// <summary>The files' size in bytes.</summary>
    public required long Length { get; init; }

    /// <summary>Their common SHA-256 (32 bytes).</summary>
    public required ReadOnlyMemory<byte> Sha256 { get; init; }

    /// <summary>
    /// The bytes all but one copy take: <see cref="Length"/> times the distinct files (machine and identity) less one.
    /// Hard links of one file are one copy.
    /// </summary>
    public required long WastedBytes { get; init; }

    /// <summary>Every name of every file of the group, ordered by machine name, then path bytes.</summary>
    public required IReadOnlyList<CatalogMatch> Files { get; init; }
}
