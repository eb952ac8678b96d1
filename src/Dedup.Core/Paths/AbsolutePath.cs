using System.Runtime.CompilerServices;
using System.Text;
using Dedup.Core.Pooling;

namespace Dedup.Core.Paths;

/// <summary>
/// An absolute file-system path stored as a linked list of nodes (parent + name).
/// Paths that share folders share nodes, names found by one scan are stored once, and equality and ordering
/// are decided without building strings. The full path is built on demand.
/// In JSON (System.Text.Json) a path is its string; one holding a name that is not valid UTF-8 is
/// <c>{"path":"…","pathBytes":"…"}</c> with the exact bytes in base64 (see <see cref="KernelNames"/>).
/// </summary>
[System.Text.Json.Serialization.JsonConverter(typeof(AbsolutePathJsonConverter))]
public partial class AbsolutePath : IEquatable<AbsolutePath>, IComparable<AbsolutePath>
{
    private readonly int _hashCode;

    private protected AbsolutePath(string name, AbsolutePath? parent)
    {
        Name = name;
        Parent = parent;
        Depth = parent is null ? 0 : parent.Depth + 1;
        _hashCode = parent is null
            ? StringComparer.Ordinal.GetHashCode(Name)
            : HashCode.Combine(parent._hashCode, StringComparer.Ordinal.GetHashCode(Name));
    }

    private protected AbsolutePath(string internedName, AbsolutePath parent, bool nameIsInterned)
    {
        Name = internedName;
        Parent = parent;
        Depth = parent.Depth + 1;
        _hashCode = HashCode.Combine(parent._hashCode, StringComparer.Ordinal.GetHashCode(internedName));
    }

    /// <summary>The folder that contains this entry, or <see langword="null"/> for a root.</summary>
    public AbsolutePath? Parent { get; }

    /// <summary>The entry's own name (for a root, the root itself, such as <c>/</c> or <c>C:\</c>).</summary>
    public string Name { get; }

    /// <summary>Number of names between the root and this entry (a root has depth 0).</summary>
    public int Depth { get; }

    /// <summary>The root node of this path (<c>/</c>, <c>C:\</c>), shared by every path under it.</summary>
    public AbsolutePath Root
    {
        get
        {
            var node = this;
            while (node.Parent is not null)
            {
                node = node.Parent;
            }

            return node;
        }
    }

    /// <summary>Length in characters of the full path, computed without building it.</summary>
    public int Length
    {
        get
        {
            if (Parent is null)
            {
                return Name.Length;
            }

            var parentLength = Parent.Length;
            var separator = Parent.Parent is null && Parent.Name.EndsWith(System.IO.Path.DirectorySeparatorChar) ? 0 : 1;
            return parentLength + separator + Name.Length;
        }
    }

    /// <summary>
    /// Parses a full path (made absolute and normalized first, without reading the disk) into linked nodes. A <c>..</c>
    /// drops the name before it, which is not what the kernel does after a symbolic link: for a folder a user names,
    /// use <see cref="Resolve"/>.
    /// </summary>
    /// <param name="path">A path; relative paths are resolved against the current directory.</param>
    /// <returns>The path's last node.</returns>
    public static AbsolutePath Parse(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        var full = System.IO.Path.GetFullPath(path);
        var rootText = System.IO.Path.GetPathRoot(full);
        if (string.IsNullOrEmpty(rootText))
        {
            throw new ArgumentException($"'{PathText.Escape(path)}' has no root.", nameof(path));
        }

        AbsolutePath node = AbsolutePathDriveRoot.Get(rootText);
        var rest = full.AsSpan(rootText.Length);
        while (!rest.IsEmpty)
        {
            var end = rest.IndexOfAny('/', System.IO.Path.DirectorySeparatorChar);
            var segment = end < 0 ? rest : rest[..end];
            if (!segment.IsEmpty)
            {
                node = node.Child(segment);
            }

            rest = end < 0 ? default : rest[(end + 1)..];
        }

        return node;
    }

    /// <summary>
    /// Creates the node for an entry inside this folder. The name is kept as given; the library's own enumerator
    /// shares equal names within a scan, and equality compares names by content either way.
    /// </summary>
    /// <param name="name">The entry's name (no separators).</param>
    /// <returns>A new node whose parent is this path.</returns>
    public AbsolutePath Child(ReadOnlySpan<char> name) => new(name.ToString(), this, nameIsInterned: true);

    /// <summary>
    /// Creates the node for an entry inside this folder. The name is kept as given; the library's own enumerator
    /// shares equal names within a scan, and equality compares names by content either way.
    /// </summary>
    /// <param name="name">The entry's name (no separators).</param>
    /// <returns>A new node whose parent is this path.</returns>
    public AbsolutePath Child(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return new(name, this, nameIsInterned: true);
    }

    /// <summary>The node for a folder in this folder, its name interned in the scan's <paramref name="names"/>.</summary>
    internal AbsolutePath Child(ReadOnlySpan<char> name, NameTable names) => new(names.Intern(name), this, nameIsInterned: true);

    /// <summary>The node for a file in this folder; its name is interned only when short (see <see cref="NameTable.InternFileName"/>).</summary>
    internal AbsolutePath ChildFile(ReadOnlySpan<char> name, NameTable names) => new(names.InternFileName(name), this, nameIsInterned: true);

    /// <summary>Whether this path equals <paramref name="ancestor"/> or lies below it.</summary>
    /// <param name="ancestor">The candidate ancestor.</param>
    /// <returns><see langword="true"/> when <paramref name="ancestor"/> is this path or one of its parents.</returns>
    public bool IsUnder(AbsolutePath ancestor)
    {
        ArgumentNullException.ThrowIfNull(ancestor);
        var node = this;
        while (node is not null && node.Depth > ancestor.Depth)
        {
            node = node.Parent;
        }

        return node is not null && node.Equals(ancestor);
    }

    /// <summary>Compares names ordinally, node by node, without building strings.</summary>
    /// <param name="other">The other path.</param>
    /// <returns><see langword="true"/> when both denote the same path.</returns>
    public bool Equals(AbsolutePath? other)
    {
        if (ReferenceEquals(this, other))
        {
            return true;
        }

        if (other is null || other._hashCode != _hashCode || other.Depth != Depth)
        {
            return false;
        }

        AbsolutePath? a = this, b = other;
        while (a is not null && b is not null)
        {
            if (ReferenceEquals(a, b))
            {
                return true;
            }

            // Names found by one scan are interned, so equal names are often the same reference.
            if (!ReferenceEquals(a.Name, b.Name) && !string.Equals(a.Name, b.Name, StringComparison.Ordinal))
            {
                return false;
            }

            a = a.Parent;
            b = b.Parent;
        }

        return a is null && b is null;
    }

    /// <summary>Case-insensitive equality, node by node (for case-insensitive file systems).</summary>
    /// <param name="other">The other path.</param>
    /// <returns><see langword="true"/> when the paths are equal ignoring case.</returns>
    public bool EqualsIgnoreCase(AbsolutePath? other)
    {
        if (ReferenceEquals(this, other))
        {
            return true;
        }

        if (other is null || other.Depth != Depth)
        {
            return false;
        }

        AbsolutePath? a = this, b = other;
        while (a is not null && b is not null)
        {
            if (ReferenceEquals(a, b))
            {
                return true;
            }

            if (!ReferenceEquals(a.Name, b.Name) && !string.Equals(a.Name, b.Name, StringComparison.OrdinalIgnoreCase))
            {
                return false;
            }

            a = a.Parent;
            b = b.Parent;
        }

        return a is null && b is null;
    }

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is AbsolutePath other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => _hashCode;

    /// <summary>Orders paths component by component (ordinal per name, parents first), without building strings.</summary>
    /// <param name="other">The other path.</param>
    /// <returns>A negative number, zero, or a positive number.</returns>
    public int CompareTo(AbsolutePath? other)
    {
        if (other is null)
        {
            return 1;
        }

        if (ReferenceEquals(this, other))
        {
            return 0;
        }

        // Bring both to the same depth, then climb until the parents meet; compare the names there.
        AbsolutePath a = this, b = other;
        while (a.Depth > b.Depth)
        {
            a = a.Parent!;
        }

        while (b.Depth > a.Depth)
        {
            b = b.Parent!;
        }

        if (a.Equals(b))
        {
            // One is an ancestor of the other: the shorter path sorts first.
            return Depth.CompareTo(other.Depth);
        }

        while (!ReferenceEquals(a.Parent, b.Parent) && !(a.Parent?.Equals(b.Parent) ?? b.Parent is null))
        {
            a = a.Parent!;
            b = b.Parent!;
        }

        return string.CompareOrdinal(a.Name, b.Name);
    }

    /// <summary>Builds the full path through a pooled <see cref="StringBuilder"/>.</summary>
    /// <returns>The full path.</returns>
    public override string ToString()
    {
        using var rented = StringBuilderPool.Shared.RentScope();
        AppendTo(rented.Builder);
        return rented.Builder.ToString();
    }

    /// <summary>
    /// The full path for human-readable output: <see cref="ToString"/> with control characters, invisible format
    /// characters and backslashes escaped by <see cref="PathText.Escape"/>, so a name holding a newline or an escape
    /// sequence cannot pass for another path or drive the terminal. Use <see cref="ToString"/> for system calls and
    /// machine-readable output.
    /// </summary>
    /// <returns>The escaped full path; the same text as <see cref="ToString"/> when nothing needs escaping.</returns>
    public string ToDisplayString() => PathText.Escape(ToString());

    /// <summary>Appends the full path to <paramref name="builder"/>.</summary>
    /// <param name="builder">The destination.</param>
    public void AppendTo(StringBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        if (Parent is null)
        {
            builder.Append(Name);
            return;
        }

        Parent.AppendTo(builder);
        if (builder.Length > 0 && builder[^1] != System.IO.Path.DirectorySeparatorChar)
        {
            builder.Append(System.IO.Path.DirectorySeparatorChar);
        }

        builder.Append(Name);
    }

    /// <summary>Writes the full path as the kernel's NUL-terminated bytes (see <see cref="KernelNames"/>) for system calls, without allocating.</summary>
    /// <returns>Bytes written, excluding the terminator; -1 if <paramref name="destination"/> is too small or a name cannot be encoded losslessly.</returns>
    internal int WriteUtf8(Span<byte> destination)
    {
        var written = WriteUtf8Core(destination);
        if (written < 0 || written >= destination.Length)
        {
            return -1;
        }

        destination[written] = 0;
        return written;
    }

    /// <summary>
    /// Writes the path of the entry named <paramref name="childName"/> (the kernel's bytes) in this folder, NUL-terminated,
    /// without making its node: a file of the scan's table is opened by its folder and its stored name.
    /// </summary>
    /// <returns>Bytes written, excluding the terminator; -1 if it does not fit or a name cannot be encoded losslessly.</returns>
    internal int WriteUtf8(Span<byte> destination, ReadOnlySpan<byte> childName)
    {
        var written = WriteUtf8Core(destination);
        if (written <= 0 || written >= destination.Length)
        {
            return -1;
        }

        if (destination[written - 1] != (byte)System.IO.Path.DirectorySeparatorChar)
        {
            destination[written++] = (byte)System.IO.Path.DirectorySeparatorChar;
        }

        if (written + childName.Length >= destination.Length)
        {
            return -1;
        }

        childName.CopyTo(destination[written..]);
        written += childName.Length;
        destination[written] = 0;
        return written;
    }

    private int WriteUtf8Core(Span<byte> destination)
    {
        var offset = 0;
        if (Parent is not null)
        {
            offset = Parent.WriteUtf8Core(destination);
            if (offset < 0)
            {
                return -1;
            }

            if (offset == 0 || destination[offset - 1] != (byte)System.IO.Path.DirectorySeparatorChar)
            {
                if (offset >= destination.Length)
                {
                    return -1;
                }

                destination[offset++] = (byte)System.IO.Path.DirectorySeparatorChar;
            }
        }

        if (!KernelNames.TryEncode(Name.AsSpan(), destination[offset..], out var count))
        {
            return -1;
        }

        return offset + count;
    }

    /// <summary>Equality operator.</summary>
    /// <param name="left">Left path.</param>
    /// <param name="right">Right path.</param>
    /// <returns>Whether equal.</returns>
    public static bool operator ==(AbsolutePath? left, AbsolutePath? right) => left is null ? right is null : left.Equals(right);

    /// <summary>Inequality operator.</summary>
    /// <param name="left">Left path.</param>
    /// <param name="right">Right path.</param>
    /// <returns>Whether different.</returns>
    public static bool operator !=(AbsolutePath? left, AbsolutePath? right) => !(left == right);

    /// <summary>Ordering operator.</summary>
    /// <param name="left">Left path.</param>
    /// <param name="right">Right path.</param>
    /// <returns>Whether left sorts first.</returns>
    public static bool operator <(AbsolutePath? left, AbsolutePath? right) => left is null ? right is not null : left.CompareTo(right) < 0;

    /// <summary>Ordering operator.</summary>
    /// <param name="left">Left path.</param>
    /// <param name="right">Right path.</param>
    /// <returns>Whether left sorts last.</returns>
    public static bool operator >(AbsolutePath? left, AbsolutePath? right) => left is not null && left.CompareTo(right) > 0;

    /// <summary>Ordering operator.</summary>
    /// <param name="left">Left path.</param>
    /// <param name="right">Right path.</param>
    /// <returns>Whether left sorts first or equal.</returns>
    public static bool operator <=(AbsolutePath? left, AbsolutePath? right) => !(left > right);

    /// <summary>Ordering operator.</summary>
    /// <param name="left">Left path.</param>
    /// <param name="right">Right path.</param>
    /// <returns>Whether left sorts last or equal.</returns>
    public static bool operator >=(AbsolutePath? left, AbsolutePath? right) => !(left < right);
}
