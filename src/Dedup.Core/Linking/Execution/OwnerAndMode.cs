namespace Dedup.Core.Linking.Execution;

/// <summary>
/// The owner, group and permissions rule of linkers whose result shows the kept file's inode (<see cref="LinkerCapabilities.SharesKeptMetadata"/>: hard and symbolic links), in one place so that the plan's prediction
/// (<see cref="Prediction.PlanPredictor"/>), the plan's partitions and the executor's check (<see cref="LinkContext"/>) give the same answer.
/// </summary>
internal static class OwnerAndMode
{
    /// <summary>07777: permission, set-id and sticky bits.</summary>
    public const int Permissions = 0xFFF;

    /// <summary>What the rule compares of one file: owner, group and permission bits (<see cref="Permissions"/> only).</summary>
    internal readonly record struct Access(uint Owner, uint Group, int Mode);

    /// <summary>The file's owner, group and permissions as its description records them (<see cref="DuplicateFile.OwnerId"/>), or <see langword="null"/> when any is unknown.</summary>
    public static Access? Of(DuplicateFile file) =>
        file is { OwnerId: { } owner, GroupId: { } group, Mode: { } mode } ? new Access(owner, group, mode & Permissions) : null;

    /// <summary>The refusal when the two files differ in owner, group or permissions; <see langword="null"/> when they agree.</summary>
    public static string? Difference(uint keptUid, uint keptGid, int keptMode, uint duplicateUid, uint duplicateGid, int duplicateMode)
    {
        if (keptUid == duplicateUid && keptGid == duplicateGid && (keptMode & Permissions) == (duplicateMode & Permissions))
        {
            return null;
        }

        return $"owner, group or permissions differ (kept {keptUid}:{keptGid} {Convert.ToString(keptMode & Permissions, 8)}, duplicate {duplicateUid}:{duplicateGid} {Convert.ToString(duplicateMode & Permissions, 8)}); a link would give the duplicate's names the kept file's and share its future writes";
    }
}
