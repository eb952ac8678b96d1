using System.Collections.Concurrent;

namespace Dedup.Core.Topology;

/// <summary>
/// Hands out access tokens per device, like the single-line tokens of a railway block: a semaphore per
/// device sized by its kind (SSD several readers, HDD one). Tokens for several devices are always taken
/// in ascending device order, so two comparisons can never wait on each other in a cycle.
/// </summary>
internal sealed class DriveAccessManager
{
    private readonly IDriveTopology _topology;
    private readonly int _parallelism;
    private readonly ConcurrentDictionary<ulong, DriveAccessSemaphore> _semaphores = new();

    public DriveAccessManager(IDriveTopology topology, int parallelism)
    {
        _topology = topology;
        _parallelism = Math.Max(1, parallelism);
    }

    public IDriveTopology Topology => _topology;

    public static int ReadersFor(DriveKind kind, int parallelism) => kind switch
    {
        DriveKind.Hdd => 1,
        DriveKind.Network => Math.Min(parallelism, 4),
        _ => parallelism,
    };

    // Static factory with the manager as its argument: no delegate is allocated per call (this runs once per candidate set).
    public DriveAccessSemaphore GetSemaphore(ulong device) =>
        _semaphores.GetOrAdd(device, static (d, self) => self.CreateSemaphore(d), this);

    private DriveAccessSemaphore CreateSemaphore(ulong device)
    {
        var info = _topology.GetDevice(device);
        return new DriveAccessSemaphore(info, ReadersFor(info.Kind, _parallelism));
    }

    /// <summary>Access to one device.</summary>
    public SingleEnterToken Enter(ulong device, CancellationToken cancellationToken)
    {
        var semaphore = GetSemaphore(device);
        semaphore.Wait(cancellationToken);
        return new SingleEnterToken(semaphore);
    }

    /// <summary>Access to two devices (one if they are the same), taken in global order.</summary>
    public DoubleEnterToken Enter(ulong first, ulong second, CancellationToken cancellationToken)
    {
        if (first == second)
        {
            return new DoubleEnterToken(Enter(first, cancellationToken), default);
        }

        var (low, high) = first < second ? (first, second) : (second, first);
        var lowToken = Enter(low, cancellationToken);
        try
        {
            return new DoubleEnterToken(lowToken, Enter(high, cancellationToken));
        }
        catch
        {
            lowToken.Dispose();
            throw;
        }
    }

    /// <summary>Access to every device in <paramref name="ordered"/> (distinct, ascending: the global order that avoids deadlock).</summary>
    public MultiEnterToken EnterAll(ulong[] ordered, CancellationToken cancellationToken)
    {
        var tokens = new SingleEnterToken[ordered.Length];
        var taken = 0;
        try
        {
            for (; taken < ordered.Length; taken++)
            {
                tokens[taken] = Enter(ordered[taken], cancellationToken);
            }

            return new MultiEnterToken(tokens);
        }
        catch
        {
            for (var i = taken - 1; i >= 0; i--)
            {
                tokens[i].Dispose();
            }

            throw;
        }
    }
}

/// <summary>Limits concurrent readers of one device.</summary>
internal sealed class DriveAccessSemaphore(StorageDevice device, int readers)
{
    private readonly SemaphoreSlim _semaphore = new(readers, readers);

    public StorageDevice Device { get; } = device;

    public int Readers { get; } = readers;

    public int Available => _semaphore.CurrentCount;

    public void Wait(CancellationToken cancellationToken) => _semaphore.Wait(cancellationToken);

    /// <summary>Takes a reader's place only if one is free now (never waits, so a holder cannot deadlock on it).</summary>
    public bool TryEnter() => _semaphore.Wait(0);

    public void Release() => _semaphore.Release();
}

/// <summary>Held while reading files on one device.</summary>
internal struct SingleEnterToken(DriveAccessSemaphore? semaphore) : IDisposable
{
    private DriveAccessSemaphore? _semaphore = semaphore;

    public void Dispose()
    {
        _semaphore?.Release();
        _semaphore = null;
    }
}

/// <summary>Held while comparing two files that may be on two devices.</summary>
internal struct DoubleEnterToken(SingleEnterToken first, SingleEnterToken second) : IDisposable
{
    private SingleEnterToken _first = first;
    private SingleEnterToken _second = second;

    public void Dispose()
    {
        _second.Dispose();
        _first.Dispose();
    }
}

/// <summary>Held while reading a set of files spread over several devices.</summary>
internal struct MultiEnterToken(SingleEnterToken[] tokens) : IDisposable
{
    private SingleEnterToken[]? _tokens = tokens;

    public void Dispose()
    {
        var tokens = _tokens;
        _tokens = null;
        if (tokens is null)
        {
            return;
        }

        for (var i = tokens.Length - 1; i >= 0; i--)
        {
            tokens[i].Dispose();
        }
    }
}
