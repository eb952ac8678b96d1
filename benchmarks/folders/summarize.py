#!/usr/bin/env python3
"""Medians of benchmarks/folders/run.sh's times; failed runs (exit status != 0) are named and left out. Agreement: compare.py."""
import os
import statistics
import sys
from collections import defaultdict

out = sys.argv[1]
rows = defaultdict(list)
failed = defaultdict(list)
for line in open(os.path.join(out, "times.txt")):
    parts = line.split()
    if line.startswith("Command "):
        continue  # GNU time's "Command exited with non-zero status N": the status is also the line's last field
    if len(parts) != 8:
        sys.exit(f"unexpected line in times.txt (run.sh writes 8 fields, the last the exit status): {line!r}")
    tree, tool, run, wall, user, sys_, rss, status = parts
    if status != "0":
        failed[(tree, tool)].append(f"run {run} exit {status}")
        continue  # a failed run's time is not a time of the work
    rows[(tree, tool)].append((float(wall), float(user) + float(sys_), int(rss)))

print("| tree | tool | runs (ok) | failed | wall s (median) | CPU s (median) | vs plain (wall) | vs plain (CPU) | peak RSS MiB |")
print("|---|---|---:|---|---:|---:|---:|---:|---:|")
for (tree, tool), values in sorted(rows.items(), key=lambda kv: (kv[0][0], ["plain", "folders", "folders-ignore-names", "rmlint-D", "rmlint-Dj"].index(kv[0][1]))):
    wall = statistics.median(v[0] for v in values)
    cpu = statistics.median(v[1] for v in values)
    base = rows.get((tree, "plain")) or [(float("nan"), float("nan"), 0)]
    bw = statistics.median(v[0] for v in base)
    bc = statistics.median(v[1] for v in base)
    print(f"| {tree} | {tool} | {len(values)} | {', '.join(failed.get((tree, tool), [])) or '-'} | {wall:.2f} | {cpu:.2f} | {wall / bw:.2f}x | {cpu / bc:.2f}x | {max(v[2] for v in values) // 1024} |")
for key in sorted(set(failed) - set(rows)):
    print(f"| {key[0]} | {key[1]} | 0 | {', '.join(failed[key])} | - | - | - | - | - |")
if any(failed.values()):
    print(f"\nFAILED RUNS (left out of the medians): {sum(len(v) for v in failed.values())}")

