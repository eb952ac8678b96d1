"""Each comparer strategy on each tree, two `dedup` builds interleaved (#14).

Usage: strategies.py ROUNDS [STRATEGIES [TREES]]; BASE_BIN and HEAD_BIN name the two executables (default
/tmp/cli-g-base/dedup and /tmp/cli-g/dedup). Each round warms a tree (cat of every file), then runs every strategy
with both builds (order alternating by round); prints median wall time (min-max), median CPU (user+sys) and a
digest of the groups, which must agree across strategies and builds.
"""
import resource, subprocess, time, os, sys, json, statistics, hashlib
trees = {"big8-300m": "/var/tmp/dedup-bench/big8-300m", "tree-60000-4": "/var/tmp/dedup-bench/tree-60000-4",
         "npm-tree": "/var/tmp/dedup-bench/npm-tree", "smallgroups": "/var/tmp/dedup-bench/smallgroups"}
bins = {"base": os.environ.get("BASE_BIN", "/tmp/cli-g-base/dedup"), "head": os.environ.get("HEAD_BIN", "/tmp/cli-g/dedup")}
strategies = sys.argv[2].split(",") if len(sys.argv) > 2 else ["hybrid", "vectorized", "bytewise", "hash"]
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
only = sys.argv[3].split(",") if len(sys.argv) > 3 else list(trees)
res = {}
cpu = {}
def warm(t): subprocess.run(f"find {t} -type f -print0 | xargs -0 cat > /dev/null", shell=True)
print("load before", os.getloadavg(), flush=True)
for r in range(rounds):
    for name in only:
        t = trees[name]; warm(t)
        order = list(bins) if r % 2 == 0 else list(bins)[::-1]
        for s in strategies:
            for b in order:
                out = f"/tmp/hp-out-{name}-{s}-{b}.json"
                c0 = resource.getrusage(resource.RUSAGE_CHILDREN); c0 = c0.ru_utime + c0.ru_stime
                t0 = time.perf_counter()
                p = subprocess.run([bins[b], "find", t, "--strategy", s, "--format", "json", "-o", out], capture_output=True)
                dt = time.perf_counter() - t0
                c1 = resource.getrusage(resource.RUSAGE_CHILDREN); c1 = c1.ru_utime + c1.ru_stime
                res.setdefault((name, s, b), []).append(dt)
                cpu.setdefault((name, s, b), []).append(c1 - c0)
    print("round", r, "load", os.getloadavg(), flush=True)
def groups(out):
    j = json.load(open(out)); return hashlib.sha1(json.dumps(sorted(sorted(f["path"] for f in g["files"]) for g in j["groups"])).encode()).hexdigest()[:10], len(j["groups"])
print("load after", os.getloadavg())
print("| tree | strategy | base wall s median (min-max) | head wall s median (min-max) | base CPU s | head CPU s | groups |")
for name in only:
    for s in strategies:
        cells = []
        for b in bins:
            v = res[(name, s, b)]; cells.append(f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})")
        cells += [f"{statistics.median(cpu[(name, s, b)]):.3f}" for b in bins]
        g = {groups(f"/tmp/hp-out-{name}-{s}-{b}.json") for b in bins}
        print(f"| {name} | {s} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} | {g} |")
