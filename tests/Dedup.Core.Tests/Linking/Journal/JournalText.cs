using System.Text.Json;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Journal;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Tests.Linking.Journal;

/// <summary>Reading a journal back in tests: its lines as JSON, even while a run still has it open.</summary>
internal static class JournalText
{
    public static List<JsonElement> Read(string path)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        using var reader = new StreamReader(stream);
        var lines = new List<JsonElement>();
        while (reader.ReadLine() is { } line)
        {
            using var document = JsonDocument.Parse(line);
            lines.Add(document.RootElement.Clone());
        }

        return lines;
    }

    public static string[] Statuses(IEnumerable<JsonElement> lines) => lines.Select(l => l.GetProperty("status").GetString()!).ToArray();

    public static JsonElement Begun(IEnumerable<JsonElement> lines) => Assert.Single(lines, l => l.GetProperty("status").GetString() == "begun");

    public static string Text(this JsonElement line, string name) => line.GetProperty(name).GetString()!;

    public static long Number(this JsonElement line, string name) => line.GetProperty(name).GetInt64();

    public static ulong Unsigned(this JsonElement line, string name) => line.GetProperty(name).GetUInt64();

    /// <summary>Asserts a <c>{device, inode, size, mtimeNs}</c> object describes the file of <paramref name="status"/>.</summary>
    public static void AssertFile(JsonElement file, in StatxBuffer status)
    {
        Assert.Equal(status.Device, file.Unsigned("device"));
        Assert.Equal(status.Ino, file.Unsigned("inode"));
        Assert.Equal((long)status.Size, file.Number("size"));
        Assert.Equal(status.LastWriteTimeNs, file.Number("mtimeNs"));
    }

    public static DuplicateActionPlan Plan(IEnumerable<DuplicateGroup> groups, Linker linker, ActionJournal journal) =>
        new DuplicateActionPlanBuilder().UseLinker(linker).UseJournal(journal).Build().Plan(groups);

    /// <summary>Writes a file whose name may hold escaped bytes (not UTF-8), through the kernel-name marshalling.</summary>
    public static void WriteRaw(string path, byte[] content)
    {
        var fd = Libc.OpenAt(Libc.AT_FDCWD, path, Libc.O_WRONLY | Libc.O_CREAT | Libc.O_EXCL | Libc.O_CLOEXEC, 0x1A4);
        Assert.True(fd >= 0, Libc.Message(Libc.LastErrno));
        using var stream = new FileStream(new SafeFileHandle(fd, ownsHandle: true), FileAccess.Write);
        stream.Write(content);
    }
}
