using Dedup.Core.Interop;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// Which journals undo reads and appends to (<see cref="JournalTrust"/>): one another user could have written is refused,
/// whoever runs undo; each rule pinned on its own (the mutation run of round 8 found them untested one by one).
/// </summary>
public sealed class UndoJournalTrustTests
{
    private const ushort Regular = 0x8000;
    private const ushort Fifo = 0x1000;

    [Theory]
    [InlineData(1000u, 1000u, 0x1A4, null)] // 0644, the reader's own
    [InlineData(1000u, 1000u, 0x1B4, null)] // 0664: a user trusts his own group
    [InlineData(1000u, 0u, 0x1A4, null)] // a user trusts root's journal
    [InlineData(0u, 0u, 0x1A4, null)] // root trusts what only root can write
    [InlineData(1000u, 1001u, 0x1A4, "it is owned by uid 1001, not by you")]
    [InlineData(1000u, 1000u, 0x1A6, "every user can write it (chmod o-w, after checking its lines)")]
    [InlineData(0u, 0u, 0x1A6, "every user can write it (chmod o-w, after checking its lines)")]
    [InlineData(0u, 1000u, 0x1A4, "it is owned by uid 1000, and root acts only on a journal only root can write")]
    [InlineData(0u, 0u, 0x1B4, "its group can write it, and root acts only on a journal only root can write (chmod g-w, after checking its lines)")]
    [InlineData(0u, 1000u, 0x1B4, "it is owned by uid 1000, and root acts only on a journal only root can write")]
    public void Each_rule_decides_on_its_own(uint euid, uint owner, int mode, string? expected)
    {
        var status = new StatxBuffer { Uid = owner, Mode = (ushort)(Regular | mode) };

        Assert.Equal(expected, JournalTrust.Problem(status, euid));
    }

    [Fact]
    public void Only_a_regular_file_is_trusted_even_when_its_owner_and_mode_are_right()
    {
        var status = new StatxBuffer { Uid = 0, Mode = Fifo | 0x180 };

        Assert.Equal("it is not a regular file", JournalTrust.Problem(status, 0));
        Assert.Equal("it is not a regular file", JournalTrust.Problem(status, 1000));
    }

    [LinuxFact]
    public void A_run_may_append_to_a_pipe_but_undo_never_reads_one()
    {
        using var tree = new TempTree();
        var fifo = tree.PathOf("journal.pipe");
        TempTree.Run("mkfifo", "-m", "600", fifo);
        var fd = Libc.Open(fifo, Libc.O_RDWR | Libc.O_CLOEXEC, 0); // read-write: the open does not wait for a writer
        Assert.True(fd >= 0);
        try
        {
            Assert.Null(JournalTrust.Problem(fd, toRead: false));
            Assert.Equal("it is not a regular file", JournalTrust.Problem(fd, toRead: true));
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    [LinuxFact]
    public void A_descriptor_that_cannot_be_examined_is_a_problem_not_a_pass()
    {
        Assert.NotNull(JournalTrust.Problem(-1, toRead: false));
        Assert.NotNull(JournalTrust.Problem(-1, toRead: true));
    }

    [LinuxFact]
    public void A_trusted_journal_is_opened_and_an_untrusted_one_refused_and_closed()
    {
        using var tree = new TempTree();
        var good = tree.Write("good.jsonl", "{}\n");
        var bad = tree.Write("bad.jsonl", "{}\n");
        File.SetUnixFileMode(good, UnixFileMode.UserRead | UnixFileMode.UserWrite);
        File.SetUnixFileMode(bad, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.OtherWrite);

        var fd = JournalTrust.OpenTrusted(good, Libc.O_RDONLY);
        Assert.True(fd > 0);
        Assert.Equal([good], OpenDescriptors.Under(tree.Root, includeRoot: false));
        _ = Libc.Close(fd);

        var refused = Assert.Throws<UnauthorizedAccessException>(() => JournalTrust.OpenTrusted(bad, Libc.O_RDONLY));
        Assert.Equal($"refusing the journal {bad}: every user can write it (chmod o-w, after checking its lines)", refused.Message);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false)); // the refused journal's descriptor is closed

        // A run appending to a journal checks the same rules on a regular file (a run undo would refuse is never added).
        var appending = Assert.Throws<UnauthorizedAccessException>(() => JournalTrust.OpenTrusted(bad, Libc.O_WRONLY | Libc.O_APPEND, forUndo: false));
        Assert.Equal(refused.Message, appending.Message);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public void A_run_appends_to_a_pipe_and_undo_refuses_it_by_name()
    {
        using var tree = new TempTree();
        var fifo = tree.PathOf("journal.pipe");
        TempTree.Run("mkfifo", "-m", "600", fifo);

        var fd = JournalTrust.OpenTrusted(fifo, Libc.O_RDWR, forUndo: false);
        Assert.True(fd > 0);
        _ = Libc.Close(fd);
        var refused = Assert.Throws<UnauthorizedAccessException>(() => JournalTrust.OpenTrusted(fifo, Libc.O_RDWR));
        Assert.Equal($"refusing the journal {fifo}: it is not a regular file", refused.Message);
    }

    [LinuxFact]
    public void Each_failed_open_says_why_with_the_exception_its_cause_calls_for()
    {
        using var tree = new TempTree();
        var file = tree.Write("journal.jsonl", "{}\n");
        var link = tree.Symlink(file, "link.jsonl");

        var missing = Assert.Throws<FileNotFoundException>(() => JournalTrust.OpenTrusted(tree.PathOf("none.jsonl"), Libc.O_RDONLY));
        Assert.Equal(tree.PathOf("none.jsonl"), missing.FileName);
        Assert.StartsWith($"cannot open the journal {tree.PathOf("none.jsonl")}: ", missing.Message, StringComparison.Ordinal);

        var linked = Assert.Throws<UnauthorizedAccessException>(() => JournalTrust.OpenTrusted(link, Libc.O_RDONLY));
        Assert.Equal($"refusing the journal {link}: it is a symbolic link", linked.Message);

        var notFolder = Assert.Throws<IOException>(() => JournalTrust.OpenTrusted(file + "/x", Libc.O_RDONLY)); // ENOTDIR
        Assert.IsNotType<FileNotFoundException>(notFolder);
        Assert.StartsWith($"cannot open the journal {file}/x: ", notFolder.Message, StringComparison.Ordinal);
    }

    [LinuxFact(RequiresRoot = true)] // chattr +i needs CAP_LINUX_IMMUTABLE
    public void An_immutable_journal_refuses_appending_as_access_denied()
    {
        using var tree = new TempTree();
        var file = tree.Write("journal.jsonl", "{}\n");
        TempTree.Run("chattr", "+i", file); // EPERM on a write open, even for root
        try
        {
            var denied = Assert.Throws<UnauthorizedAccessException>(() => JournalTrust.OpenTrusted(file, Libc.O_WRONLY | Libc.O_APPEND));
            Assert.StartsWith($"cannot open the journal {file}: ", denied.Message, StringComparison.Ordinal);
        }
        finally
        {
            TempTree.Run("chattr", "-i", file);
        }
    }
}
