#!/usr/bin/env python3
"""Deterministic generator of a duplicate-finder benchmark tree (stdlib only).

    gen_tree.py OUT_DIR [--files N] [--total-gib G] [--seed S] [--jobs J] [--force]

Builds OUT_DIR (N directory entries, about G GiB of distinct data) and writes
the expected result to OUT_DIR/../<basename(OUT_DIR)>.manifest.json, i.e.
*outside* the tree so that no benchmarked tool ever sees it.

What the tree models (see README.md for the rationale):

* nested folders, depth 1..6, ~50-200 entries per folder; a few names with
  spaces and non-ASCII characters;
* many small files (100 B .. 64 KiB), some medium ones (64 KiB .. 1 MiB) and a
  few large ones (1 .. 64 MiB) that carry most of the bytes;
* sizes are mostly drawn from small fixed sets, so same-size groups are large
  (hundreds to thousands of distinct files share a size);
* thousands of duplicate groups (2-6 copies, mostly in different folders);
* "prefix families": distinct same-size files that share their first 4 KiB
  (or 64 KiB for large files), defeating a first-block-only pre-filter;
* large near-twins: same size, identical except for the first, middle or last
  byte (sometimes the base file is itself duplicated);
* hard links (to unique and to duplicated files, sometimes 2 extra names);
* empty files (never reported as duplicates).

Everything (names, sizes, structure, content) is a pure function of
(--files, --total-gib, --seed) for a given CPython version (>= 3.9): planning
uses random.Random(seed) and each distinct content is a random.Random stream
keyed by (seed, content-id).  Writing is parallel (--jobs) but the result does
not depend on it.  The tree is built in OUT_DIR.partial and renamed at the end,
and the manifest is written last, so an existing OUT_DIR + manifest is complete.
"""

import argparse
import hashlib
import json
import math
import multiprocessing as mp
import os
import random
import shutil
import sys
import time

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB
MAX_DEPTH = 6

# Sizes drawn from small sets -> large same-size groups.
SMALL_SET = [128, 200, 256, 333, 512, 700, 1000, 1024, 1500, 2048, 3000, 4096,
             4097, 6000, 8192, 10000, 12288, 16384, 20000, 24576, 32768,
             40000, 50000, 65536]
MEDIUM_SET = [65537, 100000, 131072, 200000, 262144, 500000, 524288, 1000000]
LARGE_SET = [1 * MiB, 1 * MiB + 1, 2 * MiB, 3 * MiB, 4 * MiB, 6 * MiB, 8 * MiB,
             12 * MiB, 16 * MiB, 24 * MiB, 32 * MiB, 48 * MiB, 64 * MiB]

DIR_WORDS = ["src", "lib", "docs", "assets", "img", "photos", "Camera Roll",
             "2019", "2020", "2021", "2022", "2023", "backup", "old", "archive",
             "projects", "music", "videos", "downloads", "tmp", "build", "data",
             "notes", "reports", "Q1", "Q2", "misc", "vendor", "fotos", "café",
             "résumés", "データ", "drafts", "shared", "export", "raw",
             "thumbnails", "scans", "work", "My Documents"]
FILE_STEMS = ["report", "IMG", "DSC", "notes", "invoice", "readme", "config",
              "index", "main", "util", "photo", "scan", "track", "video",
              "backup", "data", "log", "draft", "summary", "letter", "Übersicht",
              "presentation", "model", "chart", "mail", "export", "song"]
EXT = {
    "small": ["txt", "md", "json", "c", "h", "py", "js", "css", "html", "svg",
              "ini", "csv", "log", "xml", "yaml"],
    "medium": ["jpg", "png", "pdf", "docx", "mp3", "webp", "xlsx"],
    "large": ["mp4", "mkv", "zip", "iso", "bin", "tar.gz", "mov", "wav"],
}
COPIES_W = {  # number of copies in a duplicate group -> weight
    "small": ([2, 3, 4, 5, 6], [45, 25, 14, 9, 7]),
    "medium": ([2, 3, 4, 5, 6], [50, 25, 12, 8, 5]),
    "large": ([2, 3, 4], [70, 22, 8]),
}


def content_seed(seed, key):
    h = hashlib.blake2b(f"dedup-bench/{seed}/{key}".encode(), digest_size=16)
    return int.from_bytes(h.digest(), "little")


def loguniform(rng, lo, hi):
    return int(math.exp(rng.uniform(math.log(lo), math.log(hi))))


class Content:
    """One distinct byte sequence (an inode-to-be), possibly written k times."""
    __slots__ = ("cid", "tier", "size", "prefix", "flips", "paths", "links",
                 "twin_of", "diff")

    def __init__(self, cid, tier, size, prefix=None, flips=(), twin_of=None,
                 diff=None):
        self.cid = cid          # content key (variants of a twin set share it)
        self.tier = tier
        self.size = size
        self.prefix = prefix    # (prefix_key, prefix_len) or None
        self.flips = tuple(flips)  # byte offsets xor-ed with 0xFF
        self.paths = []         # one per copy (each copy is its own inode)
        self.links = []         # per copy: list of extra hard-link names
        self.twin_of = twin_of
        self.diff = diff


class Planner:
    def __init__(self, n_files, total_bytes, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.n_files = n_files
        self.total_bytes = total_bytes
        self.contents = []
        self.next_key = 0
        self.empties = []
        self.twin_sets = []
        self.prefix_keys = {}

    def key(self):
        self.next_key += 1
        return self.next_key

    # -- folders ---------------------------------------------------------
    def plan_dirs(self):
        rng = self.rng
        n_dirs = max(1, round(self.n_files / 125))
        dirs = [("", 0)]  # (relpath, depth); root also gets files
        children = {"": set()}
        while len(dirs) < n_dirs + 1:
            cands = [d for d in dirs if d[1] < MAX_DEPTH]
            parent, depth = rng.choice(cands)
            word = rng.choice(DIR_WORDS)
            name = word
            i = 1
            while name in children[parent]:
                i += 1
                name = f"{word} {i}" if " " in word or rng.random() < 0.3 else f"{word}_{i}"
            children[parent].add(name)
            rel = f"{parent}/{name}" if parent else name
            children[rel] = set()
            dirs.append((rel, depth + 1))
        self.dirs = [d[0] for d in dirs]
        self.depth = {d[0]: d[1] for d in dirs}
        # capacities 50..200 (root: small), scaled to n_files entries.
        caps = [rng.randint(5, 20)] + [rng.randint(50, 200) for _ in dirs[1:]]
        scale = self.n_files / sum(caps)
        caps = [max(1, int(c * scale)) for c in caps]
        i = 0
        while sum(caps) < self.n_files:
            caps[1 + i % max(1, len(caps) - 1) if len(caps) > 1 else 0] += 1
            i += 1
        while sum(caps) > self.n_files:
            j = rng.randrange(len(caps))
            if caps[j] > 1:
                caps[j] -= 1
        slots = [d for d, c in zip(range(len(caps)), caps) for _ in range(c)]
        rng.shuffle(slots)
        self.slots = slots
        self.names_in_dir = [set() for _ in self.dirs]

    def take_slots(self, k, spread=True):
        """Pop k folder indices; distinct folders when spread (best effort)."""
        rng = self.rng
        out = []
        for _ in range(k):
            # capacities are approximate: past them, pick any folder
            d = self.slots.pop() if self.slots else rng.randrange(len(self.dirs))
            if spread and d in out:
                for _ in range(30):
                    j = rng.randrange(len(self.slots)) if self.slots else None
                    if j is None:
                        break
                    if self.slots[j] not in out:
                        self.slots[j], d = d, self.slots[j]
                        break
            out.append(d)
        return out

    def name_in(self, d, stem, ext):
        names = self.names_in_dir[d]
        name = f"{stem}.{ext}"
        n = 1
        while name.casefold() in names:
            n += 1
            name = f"{stem} ({n}).{ext}"
        names.add(name.casefold())
        base = self.dirs[d]
        return f"{base}/{name}" if base else name

    def fresh_stem(self):
        rng = self.rng
        stem = rng.choice(FILE_STEMS)
        sep = " " if rng.random() < 0.1 else "_"
        return f"{stem}{sep}{rng.randrange(100000):05d}"

    # -- contents --------------------------------------------------------
    def add_content(self, c, copies):
        rng = self.rng
        ext = rng.choice(EXT[c.tier])
        stem = self.fresh_stem()
        spread = copies > 1 and rng.random() < 0.9
        for i, d in enumerate(self.take_slots(copies, spread=spread)):
            s = stem
            if i > 0:
                r = rng.random()
                if r < 0.2:
                    s = f"{stem} - Copy"
                elif r < 0.35:
                    s = f"copy of {stem}"
                elif r < 0.45:
                    s = self.fresh_stem()  # renamed copy
            c.paths.append(self.name_in(d, s, ext))
            c.links.append([])
        self.contents.append(c)
        return c

    def copies(self, tier, p_dup):
        if self.rng.random() >= p_dup:
            return 1
        vals, w = COPIES_W[tier]
        return self.rng.choices(vals, w)[0]

    def prefix_for(self, tier, size, plen):
        """Shared prefix (same 'file header') for a family of same-size files."""
        fam = (tier, size, self.rng.randrange(3))
        if fam not in self.prefix_keys:
            self.prefix_keys[fam] = self.key()
        return (self.prefix_keys[fam], plen)

    def small_size(self):
        if self.rng.random() < 0.6:
            return self.rng.choice(SMALL_SET)
        return loguniform(self.rng, 100, 64 * KiB)

    def plan_small_one(self):
        rng = self.rng
        size = self.small_size()
        prefix = None
        if size >= 1024 and rng.random() < 0.15:
            prefix = self.prefix_for("small", size, min(4096, size // 2))
        return self.add_content(Content(self.key(), "small", size, prefix),
                                self.copies("small", 0.075))

    def plan(self):
        rng = self.rng
        N = self.n_files
        self.plan_dirs()
        n_empty = max(1, round(0.005 * N))
        n_links = round(0.01 * N)
        n_content_names = N - n_empty - n_links
        if n_content_names < 10:
            raise SystemExit("--files too small")

        # medium tier: ~4% of the names
        names = 0
        while names < 0.04 * n_content_names:
            if rng.random() < 0.3:
                size = rng.choice(MEDIUM_SET)
            else:
                size = loguniform(rng, 64 * KiB + 1, 1 * MiB - 1)
            prefix = None
            r = rng.random()
            if r < 0.05:  # small near-twin pair
                k = self.key()
                pos = rng.sample([("first", 0), ("middle", size // 2), ("last", size - 1)], 2)
                base = self.add_content(Content(k, "medium", size), 1)
                twin = self.add_content(Content(k, "medium", size, flips=[pos[0][1]], twin_of=base, diff=pos[0][0]), 1)
                self.twin_sets.append([base, twin])
                names += 2
                continue
            if r < 0.25:
                prefix = self.prefix_for("medium", size, 4096)
            c = self.add_content(Content(self.key(), "medium", size, prefix),
                                 self.copies("medium", 0.10))
            names += len(c.paths)

        # small tier: everything else but the large names (fixed up below)
        est_small_mean = 9 * KiB
        medium_bytes = sum(c.size * len(c.paths) for c in self.contents)
        guess_large_names = max(0, int((self.total_bytes - medium_bytes
                                        - (n_content_names - names) * est_small_mean) / (20 * MiB)))
        small_target = n_content_names - names - guess_large_names
        small = []
        small_names = 0
        while small_names < small_target:
            small.append(self.plan_small_one())
            small_names += len(small[-1].paths)

        # large tier: fill the remaining byte budget
        used = sum(c.size * len(c.paths) for c in self.contents)
        budget = self.total_bytes - used
        if budget < 0.3 * self.total_bytes:
            print(f"warning: small+medium files already use {used / GiB:.2f} GiB; "
                  "few or no large files", file=sys.stderr)
        while budget >= 1 * MiB:
            size = rng.choice(LARGE_SET) if rng.random() < 0.5 else loguniform(rng, 1 * MiB, 64 * MiB)
            r = rng.random()
            if r < 0.30:  # near-twin set: base + 1..2 variants
                nvar = rng.choice([1, 1, 2])
                dup_base = rng.random() < 0.3
                cost = size * (1 + nvar + (1 if dup_base else 0))
                if cost > budget:
                    size = budget // (1 + nvar + (1 if dup_base else 0))
                    if size < 1 * MiB:
                        nvar, dup_base = 0, False
                        size = min(budget, 64 * MiB)
                k = self.key()
                base = self.add_content(Content(k, "large", size), 2 if dup_base else 1)
                tset = [base]
                where = rng.sample([("first", 0), ("middle", size // 2), ("last", size - 1)], nvar)
                for name, off in where:
                    tset.append(self.add_content(Content(k, "large", size, flips=[off], twin_of=base, diff=name), 1))
                if len(tset) > 1:
                    self.twin_sets.append(tset)
                budget -= size * sum(len(c.paths) for c in tset)
                continue
            copies = self.copies("large", 0.15 / 0.70)
            if size * copies > budget:
                size = budget // copies
                if size < 1 * MiB:
                    copies, size = 1, min(budget, 64 * MiB)
            prefix = None
            if rng.random() < 0.2:
                prefix = self.prefix_for("large", size, 64 * KiB)
            self.add_content(Content(self.key(), "large", size, prefix), copies)
            budget -= size * copies

        # fix the name count with unique small files (add or drop)
        have = sum(len(c.paths) for c in self.contents)
        while have < n_content_names:
            c = self.add_content(Content(self.key(), "small", self.small_size()), 1)
            have += 1
        if have > n_content_names:
            drop = set()
            for c in reversed(small):
                if have <= n_content_names:
                    break
                if len(c.paths) == 1 and c.prefix is None:
                    drop.add(id(c))
                    have -= 1
            # (their names stay reserved in names_in_dir; harmless)
            self.contents = [c for c in self.contents if id(c) not in drop]

        # empty files
        for _ in range(n_empty):
            d = self.take_slots(1)[0]
            self.empties.append(self.name_in(d, self.fresh_stem(), rng.choice(EXT["small"])))

        # hard links: extra names for existing inodes
        by_tier = {"small": [], "medium": [], "large": []}
        for c in self.contents:
            by_tier[c.tier].append(c)
        dup_small = [c for c in by_tier["small"] if len(c.paths) > 1]
        made = 0
        self.empty_links = []
        while made < n_links:
            r = rng.random()
            if r < 0.01 and self.empties:
                tgt = rng.choice(self.empties)
                d = self.take_slots(1)[0]
                self.empty_links.append((tgt, self.name_in(d, "empty-link", "txt")))
                made += 1
                continue
            if r < 0.35 and dup_small:
                c = rng.choice(dup_small)
            else:
                tier = rng.choices(["small", "medium", "large"], [70, 20, 10])[0]
                if not by_tier[tier]:
                    tier = "small"
                c = rng.choice(by_tier[tier])
            i = rng.randrange(len(c.paths))
            nlinks = 2 if rng.random() < 0.1 and made + 2 <= n_links else 1
            src = c.paths[i]
            stem, ext = split_ext(os.path.basename(src))
            for _ in range(nlinks):
                same_dir = rng.random() < 0.3
                d = self.take_slots(1)[0]
                if same_dir:
                    d = self.dir_index()[os.path.dirname(src)]
                link_stem = stem if (not same_dir and rng.random() < 0.5) else f"{stem}-hardlink"
                c.links[i].append(self.name_in(d, link_stem, ext))
                made += 1

    def dir_index(self):
        if not hasattr(self, "_dir_index"):
            self._dir_index = {d: i for i, d in enumerate(self.dirs)}
        return self._dir_index


def split_ext(name):
    if name.endswith(".tar.gz"):
        return name[:-7], "tar.gz"
    stem, dot, ext = name.rpartition(".")
    return (stem, ext) if dot else (name, "bin")


# -- writing ---------------------------------------------------------------

UNIQUE = 64 * KiB   # per-content random bytes after the (optional) shared prefix
BLOCK = 1 * MiB     # the rest: slices of a seeded pool at per-content random offsets
POOL_BITS = 26      # pool of 64 MiB (+ one block of slack)
_pool = {}


def data_pool(seed):
    """Seeded random pool, created once per process (shared after fork)."""
    if seed not in _pool:
        rng = random.Random(content_seed(seed, "pool"))
        _pool[seed] = memoryview(rng.randbytes((1 << POOL_BITS) + BLOCK))
    return _pool[seed]


def stream_chunks(seed, size, cid, prefix, flips):
    """Yield the content of one distinct file as byte chunks.

    Layout: [shared prefix of a family, if any] [UNIQUE bytes from this
    content's own PRNG stream] [BLOCK-sized slices of a seeded pool, at
    offsets drawn from the same stream].  The unique part makes distinct
    contents differ (with overwhelming probability) right after the prefix;
    the pool keeps writing at memcpy speed.  Near-twins share cid and differ
    only by the flipped bytes.
    """
    rng = random.Random(content_seed(seed, cid))
    pieces = []
    plen = 0
    if prefix is not None:
        pkey, plen = prefix
        plen = min(plen, size)
        pieces.append(random.Random(content_seed(seed, pkey)).randbytes(plen))
    ulen = min(UNIQUE, size - plen)
    pieces.append(rng.randbytes(ulen))
    pos = plen + ulen
    flips = sorted(flips)

    def emit(buf, start):
        if flips and any(start <= f < start + len(buf) for f in flips):
            b = bytearray(buf)
            for f in flips:
                if start <= f < start + len(b):
                    b[f - start] ^= 0xFF
            return bytes(b)
        return buf

    start = 0
    for buf in pieces:
        yield emit(buf, start)
        start += len(buf)
    if pos < size:
        pl = data_pool(seed)
        while pos < size:
            n = min(BLOCK, size - pos)
            off = rng.getrandbits(POOL_BITS)
            yield emit(pl[off:off + n], pos)
            pos += n


def write_item(item):
    root, seed, cid, size, prefix, flips, paths = item
    fds = [open(os.path.join(root, p), "wb", buffering=0) for p in paths]
    try:
        for buf in stream_chunks(seed, size, cid, prefix, flips):
            for f in fds:
                f.write(buf)
    finally:
        for f in fds:
            f.close()
    return size * len(paths)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--files", type=int, default=60000, help="directory entries (incl. hard links, empty files)")
    ap.add_argument("--total-gib", type=float, default=4.0, help="distinct data (hard links counted once)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--jobs", type=int, default=2 * (os.cpu_count() or 1),
                    help="writer processes (does not affect the result)")
    ap.add_argument("--force", action="store_true", help="replace an existing generated tree")
    args = ap.parse_args()

    out = os.path.abspath(args.out_dir)
    name = os.path.basename(out.rstrip("/"))
    parent = os.path.dirname(out)
    manifest_path = os.path.join(parent, name + ".manifest.json")
    partial = out + ".partial"
    if os.path.exists(out):
        if not args.force:
            sys.exit(f"{out} exists (use --force to regenerate)")
        if not os.path.exists(manifest_path):
            sys.exit(f"refusing to delete {out}: no {manifest_path} next to it, not a generated tree")
        shutil.rmtree(out)
    if os.path.exists(manifest_path):
        os.remove(manifest_path)
    if os.path.exists(partial):
        shutil.rmtree(partial)
    os.makedirs(parent, exist_ok=True)

    t0 = time.time()
    pl = Planner(args.files, int(args.total_gib * GiB), args.seed)
    pl.plan()
    t_plan = time.time() - t0

    for d in pl.dirs:
        os.makedirs(os.path.join(partial, d), exist_ok=True)
    items = [(partial, args.seed, c.cid, c.size, c.prefix, c.flips, c.paths) for c in pl.contents]
    items.sort(key=lambda it: -it[3] * len(it[6]))  # big first: better balance
    written = 0
    data_pool(args.seed)  # build before forking so workers share it
    if args.jobs > 1:
        with mp.get_context("fork").Pool(args.jobs) as workers:
            for n in workers.imap_unordered(write_item, items, chunksize=16):
                written += n
    else:
        for it in items:
            written += write_item(it)
    for p in pl.empties:
        open(os.path.join(partial, p), "wb").close()
    for c in pl.contents:
        for p, links in zip(c.paths, c.links):
            for l in links:
                os.link(os.path.join(partial, p), os.path.join(partial, l))
    for tgt, l in pl.empty_links:
        os.link(os.path.join(partial, tgt), os.path.join(partial, l))
    os.rename(partial, out)
    t_write = time.time() - t0 - t_plan

    # -- manifest ------------------------------------------------------------
    groups = []
    for c in pl.contents:
        if len(c.paths) > 1 and c.size > 0:
            files = []
            for p, links in zip(c.paths, c.links):
                f = {"path": p}
                if links:
                    f["links"] = sorted(links)
                files.append(f)
            files.sort(key=lambda f: f["path"])
            groups.append({"size": c.size, "files": files})
    groups.sort(key=lambda g: (-g["size"], g["files"][0]["path"]))
    twins = []
    for ts in pl.twin_sets:
        twins.append({"size": ts[0].size,
                      "members": [{"paths": sorted(c.paths), "diff": c.diff or "base"} for c in ts]})
    hardlinks = []
    for c in pl.contents:
        for p, links in zip(c.paths, c.links):
            if links:
                hardlinks.append(sorted([p] + links))
    for tgt, l in pl.empty_links:
        hardlinks.append(sorted([tgt, l]))
    hardlinks.sort()
    n_names = sum(len(c.paths) + sum(len(l) for l in c.links) for c in pl.contents) \
        + len(pl.empties) + len(pl.empty_links)
    inodes = sum(len(c.paths) for c in pl.contents) + len(pl.empties)
    size_groups = {}
    for c in pl.contents:
        size_groups[c.size] = size_groups.get(c.size, 0) + len(c.paths)
    stats = {
        "names": n_names,
        "inodes": inodes,
        "dirs": len(pl.dirs),
        "max_depth": max(pl.depth.values()),
        "bytes": written,
        "empty_files": len(pl.empties),
        "hardlink_names": n_names - inodes,
        "files_by_tier": {t: sum(len(c.paths) for c in pl.contents if c.tier == t) for t in ("small", "medium", "large")},
        "bytes_by_tier": {t: sum(c.size * len(c.paths) for c in pl.contents if c.tier == t) for t in ("small", "medium", "large")},
        "groups": len(groups),
        "duplicate_files": sum(len(g["files"]) for g in groups),
        "wasted_bytes": sum(g["size"] * (len(g["files"]) - 1) for g in groups),
        "near_twin_sets": len(twins),
        "near_twin_sets_large": sum(1 for t in twins if t["size"] >= 1 * MiB),
        "prefix_family_files": sum(len(c.paths) for c in pl.contents if c.prefix),
        "distinct_sizes": len(size_groups),
        "largest_size_group": max(size_groups.values()) if size_groups else 0,
        "files_in_size_groups_ge_100": sum(v for v in size_groups.values() if v >= 100),
    }
    manifest = {
        "generator": "benchmarks/e2e/gen_tree.py",
        "format": 1,
        "python": sys.version.split()[0],
        "args": {"files": args.files, "total_gib": args.total_gib, "seed": args.seed},
        "tree": name,
        "stats": stats,
        "groups": groups,
        "near_twins": twins,
        "hardlinks": hardlinks,
    }
    tmp = manifest_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1)
    os.rename(tmp, manifest_path)
    t_all = time.time() - t0
    print(f"gen_tree: {out}: {n_names} names ({inodes} inodes, {len(pl.empties)} empty, "
          f"{n_names - inodes} extra hard-link names) in {len(pl.dirs)} dirs (max depth {stats['max_depth']}), "
          f"{written / GiB:.2f} GiB; {len(groups)} duplicate groups ({stats['duplicate_files']} files, "
          f"{stats['wasted_bytes'] / GiB:.2f} GiB wasted), {len(twins)} near-twin sets", file=sys.stderr)
    print(f"gen_tree: plan {t_plan:.1f}s, write {t_write:.1f}s ({written / MiB / max(t_write, 1e-9):.0f} MiB/s), "
          f"total {t_all:.1f}s; manifest {manifest_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
