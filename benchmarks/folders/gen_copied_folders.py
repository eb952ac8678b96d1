#!/usr/bin/env python3
"""A tree of copied folders for the #20 folder-mode benchmark (stdlib only, deterministic).

    gen_copied_folders.py OUT_DIR [--originals 400] [--copies 1000] [--seed 20]

OUT_DIR/library holds ORIGINALS "album" folders (8-16 files of 2 KiB-512 KiB, log-uniform; a quarter with a
sub-folder of 2-4 files, a few with an empty sub-folder). COPIES folders are then copied from them, byte for byte,
to OUT_DIR/copies/<n>/... (depth 1-3, some nested inside other copies' parents). Every 10th copy is made partial:
one file changed (same size, one byte flipped), one extra file, or one file removed. Some loose files duplicate single
album files. The expected result is written to OUT_DIR/../<name>.folders.json: the exact copy sets (relative paths).
"""

import argparse
import json
import os
import random
import shutil

KiB = 1024


def content(seed, cid, size):
    return random.Random(f"{seed}-{cid}").randbytes(size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--originals", type=int, default=400)
    ap.add_argument("--copies", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    out = os.path.abspath(a.out)
    partial_dir = out + ".partial"
    shutil.rmtree(partial_dir, ignore_errors=True)
    os.makedirs(partial_dir)

    albums = []
    cid = 0
    for i in range(a.originals):
        rel = f"library/artist{i % 37:02d}/album{i:04d}"
        files = {}
        for t in range(rng.randint(8, 16)):
            size = int(2 * KiB * (256 ** rng.random()))
            files[f"{t + 1:02d} track.mp3"] = (cid, size)
            cid += 1
        if rng.random() < 0.25:
            for s in range(rng.randint(2, 4)):
                files[f"scans/page{s}.jpg"] = (cid, int(2 * KiB * (64 ** rng.random())))
                cid += 1
        empty = rng.random() < 0.05
        albums.append((rel, files, empty))

    def write_album(rel, files, empty):
        for name, (c, size) in files.items():
            path = os.path.join(partial_dir, rel, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(content(a.seed, c, size))
        if empty:
            os.makedirs(os.path.join(partial_dir, rel, "empty"), exist_ok=True)

    for rel, files, empty in albums:
        write_album(rel, files, empty)

    exact = {rel: [rel] for rel, _, _ in albums}
    partial = []
    for n in range(a.copies):
        src_rel, files, empty = albums[rng.randrange(len(albums))]
        depth = rng.randint(1, 3)
        parts = [f"copies/{n:04d}"] + [f"d{rng.randint(0, 9)}" for _ in range(depth - 1)]
        rel = "/".join(parts + [os.path.basename(src_rel)])
        files = dict(files)
        if n % 10 == 9:
            kind = ("changed", "extra", "removed")[(n // 10) % 3]
            name = sorted(files)[0]
            if kind == "changed":
                c, size = files[name]
                data = bytearray(content(a.seed, c, size))
                data[size // 2] ^= 0xFF
                write_album(rel, {k: v for k, v in files.items() if k != name}, empty)
                with open(os.path.join(partial_dir, rel, name), "wb") as f:
                    f.write(data)
            elif kind == "extra":
                files["bonus.mp3"] = (cid, 3 * KiB + n)
                cid += 1
                write_album(rel, files, empty)
            else:
                del files[name]
                write_album(rel, files, empty)
            partial.append({"copy": rel, "of": src_rel, "kind": kind})
        else:
            write_album(rel, files, empty)
            exact[src_rel].append(rel)

    # Loose duplicates of single tracks.
    for k in range(200):
        src_rel, files, _ = albums[rng.randrange(len(albums))]
        name = sorted(files)[rng.randrange(len(files))]
        c, size = files[name]
        path = os.path.join(partial_dir, f"loose/{k:03d}.mp3")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content(a.seed, c, size))

    shutil.rmtree(out, ignore_errors=True)
    os.rename(partial_dir, out)
    sets = sorted(sorted(v) for v in exact.values() if len(v) > 1)
    with open(out.rstrip("/") + ".folders.json", "w") as f:
        json.dump({"exactSets": sets, "partial": partial}, f, indent=1)
    print(f"{out}: {a.originals} albums, {a.copies} copies ({len(partial)} partial), {len(sets)} exact copy sets")


if __name__ == "__main__":
    main()
