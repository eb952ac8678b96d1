using Dedup.Cli.Interop;
using Dedup.Core.Linking.Journal;

namespace Dedup.Cli.Acting;

/// <summary>
/// The <c>--log</c> journal of one <c>link</c> or <c>delete</c>, opened once the scan is done and before the plans that
/// carry it (a run writes ahead to it). A journal file this run created and left empty (the prompt declined, standard
/// input not a terminal, nothing to do) is removed again when the run ends: a run that changed nothing leaves no file.
/// A file that was there before is never removed. On Linux the file removed is the very one created (its identity,
/// device and inode, checked without following a link), so a file put in its place meanwhile stays.
/// </summary>
internal sealed class RunJournal : IDisposable
{
    private readonly bool _created;
    private readonly Libc.FileStatus? _identity;

    private RunJournal(ActionJournal journal, bool created, Libc.FileStatus? identity)
    {
        Journal = journal;
        _created = created;
        _identity = identity;
    }

    /// <summary>The journal, for <c>DuplicateActionPlanBuilder.UseJournal</c>.</summary>
    public ActionJournal Journal { get; }

    /// <summary>Opens (or creates) the journal at <paramref name="path"/>, remembering whether this run created it.</summary>
    /// <exception cref="IOException">The file cannot be created, opened or synced.</exception>
    /// <exception cref="UnauthorizedAccessException">The file or its folder may not be written.</exception>
    public static RunJournal Open(string path)
    {
        var full = Path.GetFullPath(path);
        var existed = Exists(full);
        var journal = ActionJournal.Open(full);
        return new RunJournal(journal, !existed, !existed && OperatingSystem.IsLinux() ? Libc.StatusOf(full, follow: false) : null);
    }

    /// <summary>Closes the journal, and removes the file when this run created it and wrote nothing to it.</summary>
    public void Dispose()
    {
        Journal.Dispose();
        if (!_created || !StillOursAndEmpty(Journal.Path))
        {
            return;
        }

        try
        {
            File.Delete(Journal.Path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // An empty file left behind is harmless (undo reads it as a journal of no run).
        }
    }

    private bool StillOursAndEmpty(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            if (_identity is not { } created || Libc.StatusOf(path, follow: false) is not { } now || !now.SameFileAs(created) || now.Type != Libc.Regular)
            {
                return false;
            }
        }

        var file = new FileInfo(path);
        return file.Exists && file.Length == 0;
    }

    private static bool Exists(string path)
        => OperatingSystem.IsLinux() ? Libc.StatusOf(path, follow: false) is not null : File.Exists(path) || Directory.Exists(path);
}
