"""#37 pt8 acting benchmark tree: usage `gen_snapshots.py OUT_DIR [DISTINCT=1440] [COPIES=12]`.

Snapshot-like: COPIES folders snap-NN, each holding the same DISTINCT small files (512 B-16 KiB) under a
two-level layout (a00..a11/b00..b11/fNNNNN.dat); 1,440 x 12 = 17,280 names, ~118 MiB. Deterministic
(random.Random(37)) for a given CPython version. Each name is its own inode: hard-linking keeps one per content.
"""
import os, random, sys

root = sys.argv[1]
distinct = int(sys.argv[2]) if len(sys.argv) > 2 else 1440
copies = int(sys.argv[3]) if len(sys.argv) > 3 else 12
rnd = random.Random(37)
contents = [rnd.randbytes(rnd.randrange(512, 16 * 1024)) for _ in range(distinct)]
partial = root + ".partial"
for c in range(copies):
    for i, data in enumerate(contents):
        d = os.path.join(partial, "snap-%02d" % c, "a%02d" % (i % 12), "b%02d" % (i // 12 % 12))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "f%05d.dat" % i), "wb") as f:
            f.write(data)
os.rename(partial, root)
print(distinct * copies, "names,", distinct, "contents x", copies, "copies")
