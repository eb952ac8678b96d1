"""Many small groups (#14's strategy benchmark): usage `gen_smallgroups.py OUT_DIR`.

Deterministic for a given CPython version (random.Random(14)); 29,033 files, 1.5 GiB, 4,000 groups.
"""
# many small groups: 4000 groups of 2-8 identical files (9 KiB-96 KiB), 1 in 4 groups with a near-twin, 8000 singles
import os, random, sys
root = sys.argv[1]; rnd = random.Random(14)
os.makedirs(root + ".partial", exist_ok=True)
n = 0
def write(data):
    global n
    d = os.path.join(root + ".partial", "d%03d" % (n % 200)); os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.bin" % n), "wb") as f: f.write(data)
    n += 1
sizes = [rnd.randrange(9 * 1024, 96 * 1024) for _ in range(300)]
for g in range(4000):
    size = rnd.choice(sizes); data = rnd.randbytes(size)
    for _ in range(rnd.randrange(2, 9)): write(data)
    if g % 4 == 0:
        t = bytearray(data); t[rnd.randrange(size)] ^= 1; write(bytes(t))
for _ in range(8000): write(rnd.randbytes(rnd.choice(sizes)))
os.rename(root + ".partial", root)
print(n, "files")
