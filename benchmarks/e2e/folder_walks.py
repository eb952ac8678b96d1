#!/usr/bin/env python3
"""Counts the path components a scan's opens walk below its folder descriptors, for several choices of which folders
get the descriptors (#17, FolderHandles.OpenBusiest). A file is opened below its nearest folder (or ancestor) holding a
descriptor; every folder between is one component walked by the kernel (a dentry lookup and a permission check).

Usage: benchmarks/e2e/folder_walks.py TREE DESCRIPTORS
  DESCRIPTORS: how many folders get one (9,488 under an open-file limit of 20,000: half of 20,000 - 8 * 96 - 256).
Candidates are approximated as non-empty files whose size another file shares (hard links not folded).
"""
import collections
import os
import sys


def main():
    root, room = sys.argv[1], int(sys.argv[2])
    number, parent, depth, files = {}, [], [], []
    sizes = collections.Counter()
    for folder, _, names in os.walk(root):  # parents before children
        n = len(parent)
        number[folder] = n
        p = number.get(os.path.dirname(folder), -1) if folder != root else -1
        parent.append(p)
        depth.append(0 if p < 0 else depth[p] + 1)
        for name in names:
            try:
                size = os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
            sizes[size] += 1
            files.append((n, size))
    count = [0] * len(parent)
    for n, size in files:
        if size > 0 and sizes[size] >= 2:
            count[n] += 1
    below = count[:]
    for n in range(len(parent) - 1, 0, -1):
        if parent[n] >= 0:
            below[parent[n]] += below[n]

    def walked(cached):
        nearest, total = [0] * len(parent), 0
        for n in range(len(parent)):
            nearest[n] = n if n in cached or parent[n] < 0 else nearest[parent[n]]
            total += count[n] * (depth[n] - depth[nearest[n]])
        return total

    def with_ancestors(order):
        cached = set()
        for n in order:
            if len(cached) >= room:
                break
            chain, a = [], n
            while a >= 0 and a not in cached:
                chain.append(a)
                a = parent[a]
            if len(cached) + len(chain) <= room:
                cached.update(chain)
        return cached

    every = range(len(parent))
    print(f"folders {len(parent):,}, candidates {sum(count):,}, descriptors {room:,}")
    print(f"root only: {walked({0}):,} components walked")
    print(f"busiest by their own candidates: {walked(with_ancestors(sorted(every, key=lambda n: -count[n]))):,}")
    print(f"heaviest by the candidates at or below them: {walked(with_ancestors(sorted(every, key=lambda n: -below[n]))):,}")


if __name__ == "__main__":
    main()
