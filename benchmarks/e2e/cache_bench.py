#!/usr/bin/env python3
"""#18: warm rescans with a SQLite hash cache against jdupes and against dedup without a cache.

    python3 benchmarks/e2e/cache_bench.py /var/tmp/dedup-bench/src250k --dedup /tmp/dedup-aot/dedup --rounds 5

Each round runs, back to back (this VM drops idle page cache after ~60 s, so everything stays warm):
jdupes -r -q TREE; dedup find TREE (no cache); dedup find TREE --cache NEW (first run: the file is deleted
before); dedup find TREE --cache WARM (a rescan of the unchanged tree, the cache written by an earlier run).
Then two floors: find -printf (stat of every file, one thread) and dedup with every file filtered out by
size (its parallel listing alone). Prints each run's wall time and the medians and ratios. Output goes to /dev/null; --summary keeps dedup's
report small (jdupes has no such switch; its listing is a few MB here).
"""
import argparse, os, statistics, subprocess, sys, time

FAILED = []

def run(cmd):
    # stderr is kept: a failed run must be seen, and it makes the script exit non-zero.
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        FAILED.append((cmd, done.returncode))
        print(f"FAILED (exit {done.returncode}): {' '.join(cmd)}: {done.stderr.decode(errors='replace').strip()[-300:]}", flush=True)
    return elapsed

def main():
    p = argparse.ArgumentParser()
    p.add_argument("tree")
    p.add_argument("--dedup", default="/tmp/dedup-aot/dedup")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cache-dir", default="/var/tmp/dedup-bench/cache")
    a = p.parse_args()
    os.makedirs(a.cache_dir, exist_ok=True)
    new, warm = os.path.join(a.cache_dir, "new.db"), os.path.join(a.cache_dir, "warm.db")
    for f in (warm, warm + "-wal", warm + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    # Warm-up: page cache, and the warm cache written once (its files are then older than the racy window).
    run(["jdupes", "-r", "-q", a.tree])
    time.sleep(1.1)
    run([a.dedup, "find", a.tree, "--summary", "--cache", warm])
    times = {k: [] for k in ("jdupes", "dedup", "dedup --cache (first run)", "dedup --cache (rescan)", "stat walk (find -printf)", "dedup walk only (--min-size 1P)")}
    for r in range(a.rounds):
        times["jdupes"].append(run(["jdupes", "-r", "-q", a.tree]))
        times["dedup"].append(run([a.dedup, "find", a.tree, "--summary"]))
        for f in (new, new + "-wal", new + "-shm"):
            if os.path.exists(f):
                os.remove(f)
        times["dedup --cache (first run)"].append(run([a.dedup, "find", a.tree, "--summary", "--cache", new]))
        times["dedup --cache (rescan)"].append(run([a.dedup, "find", a.tree, "--summary", "--cache", warm]))
        # Floors: a single-threaded stat of every file, and dedup's own listing with every file filtered out by size.
        times["stat walk (find -printf)"].append(run(["find", a.tree, "-type", "f", "-printf", "%i %s %T@ %C@\\n"]))
        times["dedup walk only (--min-size 1P)"].append(run([a.dedup, "find", a.tree, "--summary", "--min-size", str(1 << 50)]))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in times.items()), flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    print("medians: " + ", ".join(f"{k} {v:.3f} s" for k, v in med.items()))
    print(f"rescan / jdupes = {med['dedup --cache (rescan)'] / med['jdupes']:.3f} (target <= 0.2)")
    print(f"first run with cache / without = {med['dedup --cache (first run)'] / med['dedup']:.3f} (target <= 1.1)")
    print(f"rescan / dedup without cache = {med['dedup --cache (rescan)'] / med['dedup']:.3f}")
    out = subprocess.run([a.dedup, "find", a.tree, "--summary", "--format", "json", "--cache", warm], capture_output=True, text=True)
    print("rescan summary: " + out.stdout.strip()[-400:])
    if out.returncode != 0:
        FAILED.append(("summary run", out.returncode))
    print(f"exit codes: {len(FAILED)} failed run(s)" + (": " + repr(FAILED) if FAILED else ", all 0"))
    return 1 if FAILED else 0

if __name__ == "__main__":
    sys.exit(main())
