#!/usr/bin/env python3
"""Medians of benchmarks/folders/run.sh's times, and agreement of dedup's folder groups with rmlint -D's."""
import json
import os
import statistics
import sys
from collections import defaultdict

out = sys.argv[1]
rows = defaultdict(list)
for line in open(os.path.join(out, "times.txt")):
    parts = line.split()
    if len(parts) != 7 or parts[0].startswith("Command"):
        continue
    tree, tool, _, wall, user, sys_, rss = parts
    rows[(tree, tool)].append((float(wall), float(user) + float(sys_), int(rss)))

print("| tree | tool | runs | wall s (median) | CPU s (median) | vs plain (wall) | vs plain (CPU) | peak RSS MiB |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for (tree, tool), values in sorted(rows.items(), key=lambda kv: (kv[0][0], ["plain", "folders", "folders-ignore-names", "rmlint-D", "rmlint-Dj"].index(kv[0][1]))):
    wall = statistics.median(v[0] for v in values)
    cpu = statistics.median(v[1] for v in values)
    base = rows[(tree, "plain")]
    bw = statistics.median(v[0] for v in base)
    bc = statistics.median(v[1] for v in base)
    print(f"| {tree} | {tool} | {len(values)} | {wall:.2f} | {cpu:.2f} | {wall / bw:.2f}x | {cpu / bc:.2f}x | {max(v[2] for v in values) // 1024} |")


def dedup_sets(path):
    d = json.load(open(path))
    return {tuple(sorted(f["path"] for f in g["folders"])) for g in d.get("folderGroups", []) if "differences" not in g}


def rmlint_sets(path):
    groups = defaultdict(list)
    for e in json.load(open(path)):
        if isinstance(e, dict) and e.get("type") == "duplicate_dir":
            groups[e["checksum"]].append(e["path"])
    return {tuple(sorted(v)) for v in groups.values() if len(v) > 1}


print()
for tree in sorted({t for t, _ in rows}):
    for ours, theirs in (("folders", "rmlint-Dj"), ("ignore", "rmlint-D")):
        a = os.path.join(out, f"{tree}.{ours}.json")
        b = os.path.join(out, f"{tree}.{theirs}.json")
        if not (os.path.exists(a) and os.path.exists(b)):
            continue
        x, y = dedup_sets(a), rmlint_sets(b)
        fx = {f for s in x for f in s}
        fy = {f for s in y for f in s}
        print(f"{tree}: dedup --{'folders' if ours == 'folders' else 'folders-ignore-names'}: {len(x)} groups, {len(fx)} folders; "
              f"rmlint {theirs[6:]}: {len(y)} groups, {len(fy)} folders; same groups: {len(x & y)}; "
              f"folders only dedup reports: {len(fx - fy)}, only rmlint: {len(fy - fx)}")
