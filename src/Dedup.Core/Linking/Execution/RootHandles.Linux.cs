using System.Runtime.Versioning;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// The scanned roots one run of a plan has opened, each opened and checked against the scan once (resolved, walked
/// without following links, same device and inode) and then shared by every action below it: a plan of thousands
/// of actions does not resolve and walk its root again for each folder it opens. A root that failed stays failed for
/// the run, with its reason. Holding the root's descriptor also means a root renamed or swapped later in the run
/// changes nothing: the actions keep working in the folder that was checked.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class RootHandles : IDisposable
{
    private readonly Dictionary<ScanRoot, (FolderHandle? Handle, string Problem)> _roots = [];

    /// <summary>The root's shared handle (not to be disposed by the caller), or <see langword="null"/> with the reason.</summary>
    public FolderHandle? Get(ScanRoot root, out string problem)
    {
        lock (_roots)
        {
            if (!_roots.TryGetValue(root, out var entry))
            {
                var handle = FolderHandle.TryOpenRoot(root, out var reason);
                _roots[root] = entry = (handle, reason);
            }

            problem = entry.Problem;
            return entry.Handle;
        }
    }

    public void Dispose()
    {
        lock (_roots)
        {
            foreach (var (handle, _) in _roots.Values)
            {
                handle?.Dispose();
            }

            _roots.Clear();
        }
    }
}
