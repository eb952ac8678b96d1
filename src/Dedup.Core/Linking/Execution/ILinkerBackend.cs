namespace Dedup.Core.Linking.Execution;

/// <summary>
/// The operations of <see cref="LinkerContext"/> on one platform, for one action: Linux (<see cref="LinuxBackend"/>),
/// Windows (<see cref="WindowsBackend"/>) or the portable Delete and Trash (<see cref="PortableBackend"/>). The
/// executor chooses the kind once per run, so no operation asks which system it runs on.
/// </summary>
internal interface ILinkerBackend
{
    void ReplaceWithHardLink();

    void ReplaceWithSymbolicLink(bool relative);

    void ReplaceWithClone();

    void DedupeWithKept();

    void ReplaceWithFile(Action<Stream> write);

    void Delete();

    /// <param name="homeTrash">The built-in trash linker's test seam: the home trash folder to use (Linux).</param>
    void MoveToTrash(string? homeTrash);
}
