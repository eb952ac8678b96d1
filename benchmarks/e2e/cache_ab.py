#!/usr/bin/env python3
"""#18: first run with a cache against a run without, for several builds alternated in the same window.

    python3 benchmarks/e2e/cache_ab.py /var/tmp/dedup-bench/src250k --dedup /tmp/cli-old/dedup --dedup /tmp/cli-new/dedup --rounds 5

Each round prewarms the page cache (this VM drops it after ~60 s idle), then for each build in turn: dedup find TREE
(no cache) and dedup find TREE --cache NEW (the file deleted before: a first run). Wall time and the child's user and
system CPU (from wait4, the same figures /usr/bin/time reports) per run; medians and the first-run ratio per build.
CPU time is the less load-sensitive signal on a shared 2-core machine; `uptime` is printed before and after.
"""
import argparse, os, statistics, subprocess, sys, time

FAILED = []

def run(cmd):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        FAILED.append((cmd, code))
        print(f"FAILED (exit {code}): {' '.join(cmd)}: {err.strip()[-300:]}", flush=True)
    return elapsed, usage.ru_utime, usage.ru_stime

def load():
    return open("/proc/loadavg").read().split()[:3]

def main():
    p = argparse.ArgumentParser()
    p.add_argument("tree")
    p.add_argument("--dedup", action="append", required=True, help="a build to measure (repeat for each)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cache-dir", default="/var/tmp/dedup-bench/cache-ab")
    a = p.parse_args()
    os.makedirs(a.cache_dir, exist_ok=True)
    new = os.path.join(a.cache_dir, "new.db")
    print(f"load before: {' '.join(load())}", flush=True)
    runs = {(b, k): [] for b in a.dedup for k in ("plain", "first")}
    for r in range(a.rounds):
        subprocess.run(["find", a.tree, "-type", "f", "-printf", "%s\\n"], stdout=subprocess.DEVNULL, check=False)
        order = a.dedup if r % 2 == 0 else list(reversed(a.dedup))  # neither build always goes first
        for build in order:
            runs[(build, "plain")].append(run([build, "find", a.tree, "--summary"]))
            for f in (new, new + "-wal", new + "-shm"):
                if os.path.exists(f):
                    os.remove(f)
            runs[(build, "first")].append(run([build, "find", a.tree, "--summary", "--cache", new]))
            print(f"round {r + 1} {build}: " + ", ".join(
                f"{k} {runs[(build, k)][-1][0]:.3f} s (user {runs[(build, k)][-1][1]:.2f} sys {runs[(build, k)][-1][2]:.2f})"
                for k in ("plain", "first")) + f"  load {load()[0]}", flush=True)
    print(f"load after: {' '.join(load())}")
    for build in a.dedup:
        med = {k: [statistics.median(x[i] for x in runs[(build, k)]) for i in range(3)] for k in ("plain", "first")}
        cpu = {k: statistics.median(x[1] + x[2] for x in runs[(build, k)]) for k in ("plain", "first")}
        print(f"{build}: without {med['plain'][0]:.3f} s (user+sys {cpu['plain']:.2f} s), first run {med['first'][0]:.3f} s "
              f"(user+sys {cpu['first']:.2f} s): wall {med['first'][0] / med['plain'][0]:.3f}x (target <= 1.1), "
              f"CPU +{cpu['first'] - cpu['plain']:.2f} s, user {med['plain'][1]:.2f} -> {med['first'][1]:.2f} s")
    print(f"exit codes: {len(FAILED)} failed run(s)" + (": " + repr(FAILED) if FAILED else ", all 0"))
    return 1 if FAILED else 0

if __name__ == "__main__":
    sys.exit(main())
