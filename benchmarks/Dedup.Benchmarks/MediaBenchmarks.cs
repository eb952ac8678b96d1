using System.Buffers.Binary;
using BenchmarkDotNet.Attributes;
using Dedup.Core;
using Dedup.Core.Media;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Benchmarks;

/// <summary>
/// Media mode cost on large generated files (~32 MiB each, page cache warm): reading the whole file, locating
/// the payload ranges only, and locating plus reading the payload through the ranges.
/// </summary>
[MemoryDiagnoser]
public class MediaBenchmarks
{
    private const int Target = 32 << 20;
    private readonly byte[] _buffer = new byte[1 << 20];
    private readonly List<ByteRange> _ranges = [];
    private string _folder = "";
    private SafeFileHandle? _handle;
    private long _length;

    [Params(MediaFormat.Mp3, MediaFormat.Jpeg, MediaFormat.Png, MediaFormat.Wav, MediaFormat.Mp4)]
    public MediaFormat Format { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _folder = Directory.CreateTempSubdirectory("dedup-media-bench").FullName;
        var path = Path.Combine(_folder, "file." + Format.ToString().ToLowerInvariant());
        File.WriteAllBytes(path, Generate(Format));
        _handle = File.OpenHandle(path);
        _length = RandomAccess.GetLength(_handle);
        if (!MediaContent.TryLocate(_handle, _length, out _, _ranges))
        {
            throw new InvalidOperationException($"generated {Format} file was not located");
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _handle?.Dispose();
        Directory.Delete(_folder, recursive: true);
    }

    [Benchmark(Baseline = true)]
    public long ReadWholeFile()
    {
        long total = 0;
        for (long at = 0; at < _length;)
        {
            var read = RandomAccess.Read(_handle!, _buffer, at);
            total += read;
            at += read;
        }

        return total;
    }

    [Benchmark]
    public int LocateOnly() => MediaContent.TryLocate(_handle!, _length, out _, _ranges) ? _ranges.Count : -1;

    [Benchmark]
    public long LocateAndReadPayload()
    {
        if (!MediaContent.TryLocate(_handle!, _length, out _, _ranges))
        {
            return -1;
        }

        long total = 0;
        foreach (var range in _ranges)
        {
            for (long done = 0; done < range.Length;)
            {
                var read = RandomAccess.Read(_handle!, _buffer.AsSpan(0, (int)Math.Min(_buffer.Length, range.Length - done)), range.Offset + done);
                total += read;
                done += read;
            }
        }

        return total;
    }

    private static byte[] Generate(MediaFormat format)
    {
        var random = new Random(1);
        using var s = new MemoryStream();
        void Bytes(ReadOnlySpan<byte> b) => s.Write(b);
        void U32BE(long v) { Span<byte> b = stackalloc byte[4]; BinaryPrimitives.WriteUInt32BigEndian(b, (uint)v); s.Write(b); }
        void U32LE(long v) { Span<byte> b = stackalloc byte[4]; BinaryPrimitives.WriteUInt32LittleEndian(b, (uint)v); s.Write(b); }
        byte[] Random(int n) { var b = new byte[n]; random.NextBytes(b); return b; }
        switch (format)
        {
            case MediaFormat.Mp3: // ID3v2 tag, then 417-byte MPEG-1 Layer III frames
                Bytes("ID3\x03\0\0\0\0\x08\0"u8);
                Bytes(new byte[1024]);
                while (s.Length < Target)
                {
                    var frame = Random(417);
                    frame[0] = 0xFF; frame[1] = 0xFB; frame[2] = 0x90; frame[3] = 0;
                    Bytes(frame);
                }

                break;
            case MediaFormat.Jpeg: // APP1 64 KiB, DQT, SOF0, DHT, SOS, stuffed entropy data, EOI
                Bytes([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF]);
                Bytes(new byte[0xFFFD]);
                Bytes([0xFF, 0xDB, 0, 67, 0, .. Random(64), 0xFF, 0xC0, 0, 11, 8, 0, 16, 0, 16, 1, 1, 0x11, 0]);
                Bytes([0xFF, 0xC4, 0, 20, 0, 0, 1, .. new byte[14], 0, 0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0]);
                var data = Random(Target);
                foreach (var b in data)
                {
                    s.WriteByte(b);
                    if (b == 0xFF)
                    {
                        s.WriteByte(0);
                    }
                }

                Bytes([0xFF, 0xD9]);
                break;
            case MediaFormat.Png: // IHDR, text, IDAT chunks of 64 KiB (CRCs not checked by the locator), IEND
                Bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]);
                U32BE(13); Bytes("IHDR"u8); U32BE(4096); U32BE(2048); Bytes([8, 2, 0, 0, 0]); U32BE(0);
                U32BE(5); Bytes("tEXta\0bcd"u8); U32BE(0);
                while (s.Length < Target)
                {
                    U32BE(65536); Bytes("IDAT"u8); Bytes(Random(65536)); U32BE(0);
                }

                U32BE(0); Bytes("IEND"u8); U32BE(0);
                break;
            case MediaFormat.Wav:
                Bytes("RIFF"u8); U32LE(4 + 24 + 8 + Target + 8 + 100); Bytes("WAVE"u8);
                Bytes("fmt "u8); U32LE(16); Bytes([1, 0, 2, 0, 0x44, 0xAC, 0, 0, 0x10, 0xB1, 2, 0, 4, 0, 16, 0]);
                Bytes("LIST"u8); U32LE(100); Bytes(new byte[100]);
                Bytes("data"u8); U32LE(Target); Bytes(Random(Target));
                break;
            default: // MP4: ftyp, mdat of 8 KiB samples (one per chunk), moov at the end with one video track
                const int sampleSize = 8192, samples = Target / sampleSize;
                Bytes([0, 0, 0, 16, .. "ftypisom"u8, 0, 0, 2, 0]);
                U32BE(8 + Target); Bytes("mdat"u8); Bytes(Random(Target));
                var stsd = 16 + 8 + 50; var stsz = 20; var stsc = 28; var stco = 16 + (4 * samples);
                var stbl = 8 + stsd + stsz + stsc + stco; var minf = 8 + stbl; var hdlr = 33; var mdia = 8 + hdlr + minf;
                U32BE(8 + 8 + mdia); Bytes("moov"u8); U32BE(8 + mdia); Bytes("trak"u8); U32BE(mdia); Bytes("mdia"u8);
                U32BE(hdlr); Bytes("hdlr"u8); U32BE(0); U32BE(0); Bytes("vide"u8); Bytes(new byte[13]);
                U32BE(minf); Bytes("minf"u8); U32BE(stbl); Bytes("stbl"u8);
                U32BE(stsd); Bytes("stsd"u8); U32BE(0); U32BE(1); U32BE(58); Bytes("avc1"u8); Bytes(Random(50));
                U32BE(stsz); Bytes("stsz"u8); U32BE(0); U32BE(sampleSize); U32BE(samples);
                U32BE(stsc); Bytes("stsc"u8); U32BE(0); U32BE(1); U32BE(1); U32BE(1); U32BE(1);
                U32BE(stco); Bytes("stco"u8); U32BE(0); U32BE(samples);
                for (var i = 0; i < samples; i++)
                {
                    U32BE(16 + 8 + ((long)i * sampleSize));
                }

                break;
        }

        return s.ToArray();
    }
}
