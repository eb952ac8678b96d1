namespace Dedup.Core.IO;

/// <summary>How a file just opened will be read, told to the kernel (Linux; a hint, failures ignored).</summary>
internal enum ReadHint
{
    /// <summary>No hint: the kernel's default readahead.</summary>
    None,

    /// <summary>Small reads at each end (probes): readahead around them is wasted disk reads on a cold cache.</summary>
    Random,

    /// <summary>Front to back (full comparisons).</summary>
    Sequential,
}
