using System.IO.Pipes;
using System.Text;
using Dedup.Core.Linking.Operations;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="CloneOperation.CopyExtendedAttributes"/>, which gives a clone its duplicate's extended attributes, on
/// real files: every value ends as the duplicate's (one of the same size too), and a refusal names the attribute.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class ExtendedAttributeCopyTests
{
    [LinuxFact(TempFileSystem = "ext4")]
    public void Every_value_ends_as_the_sources_and_the_targets_other_attributes_stay()
    {
        using var tree = new TempTree();
        var from = tree.Write("from.bin", "a");
        var to = tree.Write("to.bin", "b");
        TestNative.SetXattr(from, "user.first", "1"u8.ToArray());
        TestNative.SetXattr(from, "user.same-size", "22"u8.ToArray());
        TestNative.SetXattr(from, "user.equal", "333"u8.ToArray());
        TestNative.SetXattr(to, "user.same-size", "xx"u8.ToArray());
        TestNative.SetXattr(to, "user.equal", "333"u8.ToArray());
        TestNative.SetXattr(to, "user.own", "4"u8.ToArray());
        using var source = File.OpenHandle(from);
        using var target = File.OpenHandle(to, FileMode.Open, FileAccess.ReadWrite);

        Assert.Equal(0, CloneOperation.CopyExtendedAttributes(Fd(source), Fd(target), out var failed));

        Assert.Null(failed);
        Assert.Equal("1"u8.ToArray(), TestNative.GetXattr(to, "user.first"));
        Assert.Equal("22"u8.ToArray(), TestNative.GetXattr(to, "user.same-size"));
        Assert.Equal("333"u8.ToArray(), TestNative.GetXattr(to, "user.equal"));
        Assert.Equal("4"u8.ToArray(), TestNative.GetXattr(to, "user.own"));
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public void A_target_refusing_an_attribute_is_an_error_naming_it()
    {
        using var tree = new TempTree();
        var from = tree.Write("from.bin", "a");
        TestNative.SetXattr(from, "user.name", Encoding.UTF8.GetBytes("value"));
        using var source = File.OpenHandle(from);
        using var pipe = new AnonymousPipeServerStream(PipeDirection.Out); // user.* only on files and folders: EPERM

        Assert.Equal(1, CloneOperation.CopyExtendedAttributes(Fd(source), (int)pipe.SafePipeHandle.DangerousGetHandle(), out var failed));
        Assert.Equal("extended attributes (user.name)", failed);
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public void A_source_without_attributes_has_nothing_to_copy_but_a_bad_descriptor_is_an_error()
    {
        using var tree = new TempTree();
        var from = tree.Write("from.bin", "a");
        var to = tree.Write("to.bin", "b");
        using var source = File.OpenHandle(from);
        using var target = File.OpenHandle(to, FileMode.Open, FileAccess.ReadWrite);

        Assert.Equal(0, CloneOperation.CopyExtendedAttributes(Fd(source), Fd(target), out var none));
        Assert.Null(none);
        Assert.Equal(9, CloneOperation.CopyExtendedAttributes(-1, Fd(target), out var failed)); // EBADF
        Assert.Equal("extended attributes (listing them)", failed);
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public void An_empty_value_is_copied_and_the_attributes_after_it_too()
    {
        using var tree = new TempTree();
        var from = tree.Write("from.bin", "a");
        var to = tree.Write("to.bin", "b");
        TestNative.SetXattr(from, "user.empty", []);
        TestNative.SetXattr(from, "user.after", "1"u8.ToArray());
        using var source = File.OpenHandle(from);
        using var target = File.OpenHandle(to, FileMode.Open, FileAccess.ReadWrite);

        Assert.Equal(0, CloneOperation.CopyExtendedAttributes(Fd(source), Fd(target), out var failed));

        Assert.Null(failed);
        Assert.Equal([], TestNative.GetXattr(to, "user.empty")!);
        Assert.Equal("1"u8.ToArray(), TestNative.GetXattr(to, "user.after"));
    }

    [LinuxFact(RequiresRoot = true, Tool = "chattr", TempFileSystem = "ext4")]
    public void A_value_the_target_already_holds_is_not_set_again()
    {
        using var tree = new LinkTree();
        var from = tree.Write("from.bin", [1]);
        var to = tree.Write("to.bin", [2]);
        TestNative.SetXattr(from, "user.held", "same"u8.ToArray());
        TestNative.SetXattr(to, "user.held", "same"u8.ToArray());
        using var source = File.OpenHandle(from);
        using var target = File.OpenHandle(to, FileMode.Open, FileAccess.ReadWrite);
        tree.MakeImmutable(to); // setting any attribute now fails with EPERM

        Assert.Equal(0, CloneOperation.CopyExtendedAttributes(Fd(source), Fd(target), out var failed));
        Assert.Null(failed);
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a btrfs, which holds more attributes than one ext4 block")]
    public void A_list_of_names_near_the_largest_size_is_read_to_its_end()
    {
        using var tree = new TempTree(LinkTree.BtrfsMount);
        var from = tree.Write("from.bin", "a");
        var to = tree.Write("to.bin", "b");
        var names = Enumerable.Range(0, 280).Select(i => $"user.{i:D3}{new string('n', 200)}").ToList(); // 280 × 209 bytes: past half of XATTR_LIST_MAX
        foreach (var name in names)
        {
            TestNative.SetXattr(from, name, [1]);
        }

        using var source = File.OpenHandle(from);
        using var target = File.OpenHandle(to, FileMode.Open, FileAccess.ReadWrite);

        Assert.Equal(0, CloneOperation.CopyExtendedAttributes(Fd(source), Fd(target), out var failed));

        Assert.Null(failed);
        Assert.All(names, name => Assert.Equal([1], TestNative.GetXattr(to, name)!));
    }

    private static int Fd(SafeFileHandle handle) => (int)handle.DangerousGetHandle();
}
