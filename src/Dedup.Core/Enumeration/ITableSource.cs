namespace Dedup.Core.Enumeration;

/// <summary>
/// A listing that writes its files straight into the scan's <see cref="FileTable"/> (no object per file) by walking
/// from the roots: its identities are the kernel's and every path it gives was reached through listed folders, so the
/// scan may trust them, refuse a link found later on such a path, key the rows while listing and walk them again
/// (<c>Scanning/KeyPass</c>). The built-in walk is one; what the scan does with a listing follows from this
/// declaration, not from the enumerator's type.
/// </summary>
internal interface ITableSource
{
    /// <summary>Lists every root into <paramref name="table"/>; returns when every folder has been listed.</summary>
    Task FillAsync(FileEnumerationContext context, FileTable table, CancellationToken cancellationToken);
}
