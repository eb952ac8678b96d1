// Compiled on every platform; the refusals run under Wine 8 (which has no ReFS); the clone itself is untested (no
// Windows machine with ReFS here).
using System.Globalization;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Operations;

/// <summary>
/// Windows clones: ReFS block cloning (FSCTL_DUPLICATE_EXTENTS_TO_FILE) from the kept file into a new file under a
/// temporary name, which gets the duplicate's times and attributes (as the Linux clone keeps the duplicate's
/// metadata; its security descriptor is the one the folder gives new files), is verified byte for byte against
/// the kept file, and is then renamed over the duplicate by the caller. Volumes without
/// FILE_SUPPORTS_BLOCK_REFCOUNTING (NTFS, FAT, network shares) are refused, also at plan time.
/// </summary>
[SupportedOSPlatform("windows")]
internal static unsafe class BlockCloneOperation
{
    /// <summary>A multiple of every cluster size and below the 4 GiB one FSCTL_DUPLICATE_EXTENTS_TO_FILE call may share.</summary>
    private const long ChunkBytes = 1L << 31;

    private const int ERROR_BLOCK_TOO_MANY_REFERENCES = 347;

    /// <summary>Why a clone is refused on a volume of <paramref name="fileSystem"/> (also the plan's prediction).</summary>
    public static string Unsupported(string fileSystem) =>
        $"the volume cannot clone files: block cloning needs ReFS, and this volume's file system ({fileSystem}) lacks FILE_SUPPORTS_BLOCK_REFCOUNTING; no copy or link is made instead";

    /// <summary>The refusal for the volume holding <paramref name="file"/>, or <see langword="null"/>; <paramref name="known"/> is false when the volume did not answer.</summary>
    public static string? VolumeRefusal(SafeFileHandle file, out bool known)
    {
        const int NameLength = 64;
        var name = stackalloc char[NameLength];
        uint flags;
        known = Kernel32.GetVolumeInformationByHandle(file, null, 0, null, null, &flags, name, NameLength);
        if (!known)
        {
            return null;
        }

        var fileSystem = new string(name);
        return (flags & Kernel32.FILE_SUPPORTS_BLOCK_REFCOUNTING) != 0 ? null : Unsupported(fileSystem.Length == 0 ? "unknown" : fileSystem);
    }

    /// <summary>Creates the verified clone at <paramref name="temporary"/> and returns its identity; on failure nothing is left behind.</summary>
    public static FileIdentity Create(PortableContext context, string temporary, string folder)
    {
        var kept = context.KeptHandle;
        var refusal = VolumeRefusal(kept, out _);
        if (refusal is not null)
        {
            throw ActionStoppedException.Skip(refusal);
        }

        var basic = context.ReadDuplicate(ReadBasicInformation);
        if ((basic.FileAttributes & Kernel32.FILE_ATTRIBUTE_READONLY) != 0)
        {
            // MoveFileExW does not replace a read-only file, and clearing the flag first would change the duplicate.
            throw ActionStoppedException.Skip("the duplicate is read-only, and Windows does not rename over a read-only file; duplicate unchanged");
        }

        var length = context.Action.Kept.Length;
        var keptAttributes = ReadBasicInformation(kept).FileAttributes;
        IntegrityInformation integrity;
        if (!Control(kept, Kernel32.FSCTL_GET_INTEGRITY_INFORMATION, null, 0, &integrity, (uint)sizeof(IntegrityInformation)))
        {
            throw ActionStoppedException.Fail($"cannot read the volume's cluster size (FSCTL_GET_INTEGRITY_INFORMATION: {LastError()}); duplicate unchanged");
        }

        FileStream stream;
        try
        {
            stream = new FileStream(temporary, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, bufferSize: 1);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw ActionStoppedException.Fail($"cannot create a clone in {PathText.Escape(folder)}: {ex.Message}; duplicate unchanged");
        }

        try
        {
            using (stream)
            {
                var target = stream.SafeFileHandle;

                // As Microsoft's block-cloning sample: sparse and integrity settings before the size, the size before cloning.
                if ((keptAttributes & Kernel32.FILE_ATTRIBUTE_SPARSE_FILE) != 0)
                {
                    Require(Control(target, Kernel32.FSCTL_SET_SPARSE, null, 0, null, 0), "FSCTL_SET_SPARSE");
                }

                var settings = new IntegrityInformation { ChecksumAlgorithm = integrity.ChecksumAlgorithm, Reserved = integrity.Reserved, Flags = integrity.Flags };
                Require(Control(target, Kernel32.FSCTL_SET_INTEGRITY_INFORMATION, &settings, 8, null, 0), "FSCTL_SET_INTEGRITY_INFORMATION");
                stream.SetLength(length);
                Duplicate(kept, target, length, integrity.ClusterSizeInBytes);

                try
                {
                    ContentVerification.RequireEqual(kept, target, length);
                }
                catch (ActionStoppedException ex)
                {
                    throw ActionStoppedException.Fail($"the clone does not hold the kept file's bytes ({ex.Message}); duplicate unchanged");
                }

                // Last, so that nothing above moves the times again.
                var copied = basic with { ChangeTime = 0, FileAttributes = CopiedAttributes(basic.FileAttributes) };
                Require(Kernel32.SetFileInformationByHandle(target, Kernel32.FileBasicInfo, &copied, (uint)sizeof(FileBasicInformation)), "setting the duplicate's times and attributes");
                stream.Flush(flushToDisk: true);
                if (!WindowsFileIds.TryRead(target, out var identity, out _, out _))
                {
                    throw ActionStoppedException.Fail($"cannot read the clone's identity: {LastError()}; duplicate unchanged");
                }

                return identity;
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            WindowsBackend.TryDelete(temporary);
            throw ActionStoppedException.Fail($"cannot write the clone in {PathText.Escape(folder)}: {ex.Message}; duplicate unchanged");
        }
        catch
        {
            WindowsBackend.TryDelete(temporary);
            throw;
        }
    }

    /// <summary>Shares the kept file's clusters in chunks: offsets stay cluster-aligned, and the last chunk is rounded up to a whole cluster (as ReFS requires).</summary>
    private static void Duplicate(SafeFileHandle kept, SafeFileHandle target, long length, uint clusterSize)
    {
        var cluster = clusterSize == 0 ? 4096L : clusterSize;
        var rounded = (length + cluster - 1) / cluster * cluster;
        var added = false;
        kept.DangerousAddRef(ref added);
        try
        {
            for (long offset = 0; offset < rounded; offset += ChunkBytes)
            {
                var data = new DuplicateExtentsData
                {
                    FileHandle = kept.DangerousGetHandle(),
                    SourceFileOffset = offset,
                    TargetFileOffset = offset,
                    ByteCount = Math.Min(ChunkBytes, rounded - offset),
                };
                if (!Control(target, Kernel32.FSCTL_DUPLICATE_EXTENTS_TO_FILE, &data, (uint)sizeof(DuplicateExtentsData), null, 0))
                {
                    var error = Marshal.GetLastPInvokeError();
                    throw error switch
                    {
                        Kernel32.ERROR_NOT_SUPPORTED or Kernel32.ERROR_INVALID_FUNCTION => ActionStoppedException.Skip(Unsupported("answering FSCTL_DUPLICATE_EXTENTS_TO_FILE with: " + Marshal.GetPInvokeErrorMessage(error))),
                        ERROR_BLOCK_TOO_MANY_REFERENCES => ActionStoppedException.Skip("the kept file's clusters are shared by as many files as ReFS allows; duplicate unchanged"),
                        _ => ActionStoppedException.Fail(string.Create(CultureInfo.InvariantCulture, $"cannot clone bytes {offset}–{offset + data.ByteCount} (FSCTL_DUPLICATE_EXTENTS_TO_FILE: {Marshal.GetPInvokeErrorMessage(error)}); duplicate unchanged")),
                    };
                }
            }
        }
        finally
        {
            if (added)
            {
                kept.DangerousRelease();
            }
        }
    }

    /// <summary>The attributes a new file can take (the others, such as sparse or compressed, follow from the content or are not settable).</summary>
    private static uint CopiedAttributes(uint attributes)
    {
        var copied = attributes & (Kernel32.FILE_ATTRIBUTE_HIDDEN | Kernel32.FILE_ATTRIBUTE_SYSTEM | Kernel32.FILE_ATTRIBUTE_ARCHIVE | Kernel32.FILE_ATTRIBUTE_NOT_CONTENT_INDEXED);
        return copied == 0 ? Kernel32.FILE_ATTRIBUTE_NORMAL : copied;
    }

    private static FileBasicInformation ReadBasicInformation(SafeFileHandle file)
    {
        FileBasicInformation basic;
        return Kernel32.GetFileInformationByHandleEx(file, Kernel32.FileBasicInfo, &basic, (uint)sizeof(FileBasicInformation))
            ? basic
            : throw ActionStoppedException.Fail($"cannot read the times and attributes to keep: {LastError()}; duplicate unchanged");
    }

    private static bool Control(SafeFileHandle file, uint code, void* input, uint inputSize, void* output, uint outputSize)
    {
        uint returned;
        return Kernel32.DeviceIoControl(file, code, input, inputSize, output, outputSize, &returned, 0);
    }

    private static void Require(bool succeeded, string what)
    {
        if (!succeeded)
        {
            throw ActionStoppedException.Fail($"cannot prepare the clone ({what}: {LastError()}); duplicate unchanged");
        }
    }

    private static string LastError() => Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError());
}
