using Dedup.Core.IO;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.IO;

/// <summary>
/// An opened file: none is open by default, a handle handed in is read through its own descriptor on Linux and is
/// open until disposed, and closing either kind closes the file.
/// </summary>
public sealed class OpenedFileTests
{
    [Fact]
    public void No_file_and_an_empty_slot_are_not_open()
    {
        Assert.False(OpenedFile.None.IsOpen);
        Assert.Equal(-1, OpenedFile.None.Descriptor);
        Assert.Null(OpenedFile.None.Node);
        Assert.Null(OpenedFile.None.Handle);
        Assert.False(default(OpenedFile).IsOpen);
        Assert.Equal(-1, default(OpenedFile).Descriptor);
        OpenedFile.None.Close(); // nothing to close
    }

    [LinuxFact]
    public void A_handle_handed_in_is_read_through_its_descriptor_and_closed_by_close()
    {
        using var tree = new TempTree();
        tree.Write("a.bin", "content");
        var handle = File.OpenHandle(tree.PathOf("a.bin"));

        var file = OpenedFile.Of(null, handle);
        Assert.True(file.IsOpen);
        Assert.Same(handle, file.Handle);
        Assert.Equal((int)handle.DangerousGetHandle(), file.Descriptor);
        Assert.Equal([tree.PathOf("a.bin")], OpenDescriptors.Under(tree.Root, includeRoot: false));

        file.Close();

        Assert.True(handle.IsClosed);
        Assert.False(file.IsOpen);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public void A_bare_descriptor_is_open_even_when_it_is_zero_and_close_closes_it()
    {
        using var tree = new TempTree();
        tree.Write("a.bin", "content");
        var handle = File.OpenHandle(tree.PathOf("a.bin"));
        var descriptor = (int)handle.DangerousGetHandle();
        handle.SetHandleAsInvalid(); // the descriptor is now the OpenedFile's alone

        var file = OpenedFile.Of(null!, descriptor);
        Assert.True(file.IsOpen);
        Assert.Equal(descriptor, file.Descriptor);
        Assert.Null(file.Handle);
        Assert.True(OpenedFile.Of(null!, 0).IsOpen);

        file.Close();

        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }
}
