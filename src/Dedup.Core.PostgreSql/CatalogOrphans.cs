using System.Globalization;

namespace Dedup.Core.PostgreSql;

/// <summary>Rows of a machine id with no machine row (deleted by hand): how every message that names them ends.</summary>
internal static class CatalogOrphans
{
    /// <summary>What an orphaned machine id's rows are, and the statements that remove them: every message naming one ends so.</summary>
    public static string Advice(int id) => string.Create(
        CultureInfo.InvariantCulture,
        $"the catalog has no machine with that id (its dedup.machines row was deleted by hand; the schema has no foreign keys). To remove all of its rows: DELETE FROM dedup.files WHERE machine_id = {id}; DELETE FROM dedup.digests WHERE machine_id = {id}; DELETE FROM dedup.machine_sizes WHERE machine_id = {id}; DELETE FROM dedup.digest_requests WHERE machine_id = {id} OR requested_by = {id};");
}
