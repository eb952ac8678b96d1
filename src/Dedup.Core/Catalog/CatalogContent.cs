using System.Buffers.Binary;

namespace Dedup.Core.Catalog;

/// <summary>A content as the catalog matches files across machines: size and SHA-256, compared as numbers (no array per key).</summary>
internal readonly record struct CatalogContent(long Length, ulong A, ulong B, ulong C, ulong D)
{
    public static CatalogContent Of(long length, ReadOnlySpan<byte> sha256) => new(
        length,
        BinaryPrimitives.ReadUInt64BigEndian(sha256),
        BinaryPrimitives.ReadUInt64BigEndian(sha256.Slice(8)),
        BinaryPrimitives.ReadUInt64BigEndian(sha256.Slice(16)),
        BinaryPrimitives.ReadUInt64BigEndian(sha256.Slice(24)));

    public static CatalogContent Of(CatalogGroup group) => Of(group.Length, group.Sha256.Span);

    public static CatalogContent Of(CatalogDigest digest) => Of(digest.Stamp.Length, digest.Sha256.Span);
}
