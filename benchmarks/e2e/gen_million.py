#!/usr/bin/env python3
"""Creates a tree of N small files (default 1,000,000) for the per-file memory measurement.

Names are realistic (varied lengths, many shared folder names); every 10th file duplicates another,
so the scan keeps real candidate sets. Deterministic for a given --seed.
"""
import argparse, os, random

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--files", type=int, default=1_000_000)
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()
rng = random.Random(a.seed)
words = ["src", "lib", "node_modules", "dist", "test", "docs", "assets", "img", "cache", "build"]
per_dir = 500
for i in range(a.files):
    if i % per_dir == 0:
        d = os.path.join(a.out, f"{words[(i // per_dir) % len(words)]}{(i // per_dir) // 40}", f"part{(i // per_dir) % 40:02d}")
        os.makedirs(d, exist_ok=True)
    name = f"file-{i:07d}-{'x' * rng.randint(0, 12)}.dat"
    body = (f"dup {i // 10 * 10}\n" if i % 10 < 2 else f"unique {i} {rng.random()}\n").encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(body)
