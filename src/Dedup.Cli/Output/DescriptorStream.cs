using System.Runtime.Versioning;

namespace Dedup.Cli.Output;

/// <summary>
/// Writes to a descriptor this process inherited (a shell's <c>3&gt;&gt; log</c>) with <c>write(2)</c>, at the offset
/// the descriptor shares with the shell: a <see cref="FileStream"/> would keep its own offset and write with
/// <c>pwrite</c>, over what the shell writes next. The descriptor is not closed: it is the shell's.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class DescriptorStream(int descriptor) : Stream
{
    public override bool CanRead => false;

    public override bool CanSeek => false;

    public override bool CanWrite => true;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override void Write(ReadOnlySpan<byte> buffer) => OutputFacts.WriteAll(descriptor, buffer);

    public override void Flush()
    {
        // write(2) keeps nothing back.
    }

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}
