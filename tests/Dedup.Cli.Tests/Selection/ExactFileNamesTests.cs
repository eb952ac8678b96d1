using System.CommandLine;
using Dedup.Cli.Selection;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Selection;

/// <summary>
/// <see cref="ExactFileNames"/> in process: a file option refuses a name .NET would not open exactly (bytes that are
/// not UTF-8, or U+FFFD standing for them) and a folder (or a link to one), and takes any other file name, existing or
/// not. ReportFileTests and NonUtf8NamesTests run the same refusals through the CLI process.
/// </summary>
public sealed class ExactFileNamesTests
{
    private const string NotUtf8 = "--log: the file name has bytes that are not UTF-8 (or U+FFFD), which this option cannot open exactly; give a name that is UTF-8 (scanned folders may have any name)";

    // Code points, not strings: xunit would serialise a lone surrogate in theory data as U+FFFD.
    [Theory]
    [InlineData(0xDC80)]
    [InlineData(0xDCFF)]
    [InlineData(0xFFFD)]
    public void A_name_with_bytes_that_are_not_utf8_is_refused(int codePoint)
    {
        Assert.Equal([NotUtf8], Errors($"/tmp/a{(char)codePoint}.log"));
    }

    [Theory]
    [InlineData(0xDC7F)] // a lone surrogate just below the range KernelNames uses: not one of its bytes
    [InlineData(0xDD00)] // and just above it
    [InlineData(0x00E4)]
    [InlineData(0x20AC)]
    public void Other_names_are_taken(int codePoint)
    {
        Assert.Empty(Errors($"/tmp/a{(char)codePoint}.log"));
    }

    [Fact]
    public void A_name_starting_with_a_byte_that_is_not_utf8_is_refused()
    {
        Assert.Equal([NotUtf8], Errors((char)0xDC80 + ".log"));
    }

    [Fact]
    public void A_folder_whose_name_is_not_exact_gets_one_error_not_two()
    {
        using var tree = new TempTree();
        var folder = tree.PathOf("logs\uFFFD");
        Directory.CreateDirectory(folder);

        Assert.Equal([NotUtf8], Errors(folder));
    }

    [Fact]
    public void A_folder_is_refused_by_name()
    {
        using var tree = new TempTree();
        var folder = tree.PathOf("logs");
        Directory.CreateDirectory(folder);

        Assert.Equal([$"--log: '{folder}' is a folder; give a file"], Errors(folder));
    }

    [LinuxFact]
    public void A_link_to_a_folder_is_refused_and_a_link_to_a_file_is_taken()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("logs"));
        tree.Write("file.log", "x");
        var toFolder = tree.Symlink(tree.PathOf("logs"), "to-folder");
        var toFile = tree.Symlink(tree.PathOf("file.log"), "to-file");

        Assert.Equal([$"--log: '{toFolder}' is a folder; give a file"], Errors(toFolder));
        Assert.Empty(Errors(toFile));
    }

    [Fact]
    public void An_existing_file_and_a_new_one_are_taken()
    {
        using var tree = new TempTree();
        var existing = tree.Write("existing.log", "x");

        Assert.Empty(Errors(existing));
        Assert.Empty(Errors(tree.PathOf("new.log")));
    }

    [Fact]
    public void The_option_is_returned_with_its_check_added()
    {
        var option = new Option<FileInfo?>("--log");
        var before = option.Validators.Count;

        Assert.Same(option, ExactFileNames.Require(option));
        Assert.Equal(before + 1, option.Validators.Count);
    }

    private static string[] Errors(string name)
    {
        var option = ExactFileNames.Require(new Option<FileInfo?>("--log"));
        return new RootCommand { option }.Parse(["--log", name]).Errors.Select(e => e.Message).ToArray();
    }
}
