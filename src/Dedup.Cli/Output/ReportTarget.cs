using Dedup.Cli.Interop;
using Dedup.Core.Paths;

namespace Dedup.Cli.Output;

/// <summary>
/// Where <c>-o</c> sends the report, decided before the scan so that a report that cannot be written costs no scan
/// (exit 2): an open descriptor, a device or FIFO written in place, or a regular file replaced whole.
/// </summary>
internal sealed class ReportTarget
{
    private ReportTarget(string? path, int descriptor, bool inPlace, string display)
    {
        Path = path;
        Descriptor = descriptor;
        InPlace = inPlace;
        Display = display;
    }

    /// <summary>Standard output: no <c>-o</c>, or <c>-o -</c>.</summary>
    public static ReportTarget StandardOutput { get; } = new(null, 1, false, "standard output");

    /// <summary>The file to open or replace; <see langword="null"/> when the report goes to <see cref="Descriptor"/>.</summary>
    public string? Path { get; }

    /// <summary>
    /// The open descriptor that already reaches the target (1, 2, or one a shell opened such as <c>3&gt;&gt;log</c>):
    /// written through with no temporary file and no rename, so a shell's <c>&gt;&gt; app.log</c> keeps its file and
    /// what it holds. -1 for a path.
    /// </summary>
    public int Descriptor { get; }

    /// <summary>A device, FIFO or terminal: opened and written in place (renaming over it would replace the node with a plain file).</summary>
    public bool InPlace { get; }

    /// <summary>How messages name the target.</summary>
    public string Display { get; }

    /// <summary>
    /// The target of <paramref name="output"/>, or the one-line reason it cannot be written to. A symbolic link is refused
    /// (unless it leads to an open descriptor, a device or a FIFO, as <c>/dev/stdout</c> does): replacing the file would
    /// have replaced either the link or the file it points to, neither of which the name given says.
    /// </summary>
    public static ReportTarget? Resolve(FileInfo? output, out string? problem)
    {
        problem = null;
        if (output is null || output.ToString() == "-")
        {
            return StandardOutput;
        }

        var full = output.FullName;
        var display = $"'{PathText.Escape(full)}'";
        if (!OperatingSystem.IsLinux())
        {
            var parent = System.IO.Path.GetDirectoryName(full);
            if (parent is not null && !Directory.Exists(parent))
            {
                problem = $"cannot write the report to {display}: no folder '{PathText.Escape(parent)}'";
                return null;
            }

            return new ReportTarget(full, -1, false, display);
        }

        if (Libc.StatusOf(full, follow: true) is { } facts)
        {
            var descriptor = OutputFacts.WritableDescriptorFor(facts);
            if (descriptor >= 0)
            {
                return descriptor == 1 ? StandardOutput : new ReportTarget(null, descriptor, false, descriptor == 2 ? "standard error" : $"descriptor {descriptor}");
            }

            if (facts.Type is not Libc.Regular and not Libc.Folder)
            {
                var denied = Libc.AccessError(full, folder: false);
                problem = denied == 0 ? null : $"cannot write the report to {display}: {Libc.Describe(denied)}";
                return denied == 0 ? new ReportTarget(full, -1, true, display) : null;
            }
        }

        if (Libc.StatusOf(full, follow: false) is { Type: Libc.Link })
        {
            problem = $"-o {display} is a symbolic link: give the file it leads to (a report replaces its file whole, and through a link it would replace another name than the one given)";
            return null;
        }

        var folder = System.IO.Path.GetDirectoryName(full) ?? "/";
        var error = Libc.AccessError(folder, folder: true);
        if (error != 0)
        {
            problem = Libc.StatusOf(folder, follow: true) is null
                ? $"cannot write the report to {display}: no folder '{PathText.Escape(folder)}'"
                : $"cannot write the report to {display}: cannot create files in '{PathText.Escape(folder)}': {Libc.Describe(error)}";
            return null;
        }

        return new ReportTarget(full, -1, false, display);
    }
}
