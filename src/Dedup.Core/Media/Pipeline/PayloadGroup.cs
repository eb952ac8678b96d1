namespace Dedup.Core.Media.Pipeline;

/// <summary>Classes found payload-equal, and whether every comparison behind that was byte by byte.</summary>
internal sealed class PayloadGroup
{
    public List<ContentClass> Classes { get; } = [];

    public bool Verified { get; private set; } = true;

    /// <summary>Adds a match to the groups: its classes, and every group one of them is already in, become one.</summary>
    public static void Merge(List<PayloadGroup> groups, ContentClass[] matched, bool verified)
    {
        var target = Array.Find(matched, static c => c.Group is not null)?.Group;
        if (target is null)
        {
            target = new PayloadGroup();
            groups.Add(target);
        }

        target.Verified &= verified;
        foreach (var found in matched)
        {
            if (found.Group is { } other && other != target)
            {
                groups.Remove(other);
                target.Verified &= other.Verified;
                foreach (var moved in other.Classes)
                {
                    moved.Group = target;
                    target.Classes.Add(moved);
                }
            }
            else if (found.Group is null)
            {
                found.Group = target;
                target.Verified &= found.Verified;
                target.Classes.Add(found);
            }
        }
    }
}
