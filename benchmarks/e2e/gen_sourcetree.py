#!/usr/bin/env python3
"""Deterministic generator of a large tree shaped like source and package trees (#17).

    python3 benchmarks/e2e/gen_sourcetree.py /var/tmp/dedup-bench/src1m            # 1,000,000 entries, ~6.3 GB
    python3 benchmarks/e2e/gen_sourcetree.py OUT --files 3000000 --total-gb 18.9   # the 3 M tree of #17 step 4

Projects (`<name>/`) each hold `src/` (nested modules, unique files, empty `__init__.py`), `node_modules/`
(packages, scoped packages, nested `node_modules`), `vendor/`, `docs/` and `<name>.git/objects/xx/<38 hex>`
(loose objects, 256-way fan-out, plus a few large `pack/*.pack` files: the long tail). No name starts with a
dot (the CLI skips hidden names, jdupes does not). Sizes are log-normal (median ~2 KiB); a few large files
top the total up to --total-gb. Duplicates: packages installed in several projects (every file of such a
package forms a group of that size), widely shared LICENSE texts (a few big groups) and vendored files.
Hard links: extra names for existing files; empty files: `__init__.py` and `.keep`-like placeholders.

Same arguments, same CPython version => same names, sizes and bytes (random.Random). --jobs only changes
write parallelism. The tree is built in OUT.partial and renamed when complete; the manifest (expected groups
in dedup's JSON shape, hard links, stats; the format of gen_tree.py, read by compare.py) goes to
OUT/../<name>.manifest.json.
"""
import argparse, json, math, os, random, shutil, struct, sys, time
from multiprocessing import Process

POOL_BYTES = 64 << 20

WORDS = ("user account session token cache config router handler service client server parser lexer "
         "buffer stream queue worker scheduler event emitter store reducer action selector hook context "
         "provider theme layout header footer sidebar button modal dialog table grid form input field "
         "validator schema model entity repository query migration index utils helpers common core shared "
         "logger metrics tracing auth crypto hash encode decode format locale date time number string array "
         "object promise async sync file path glob watch build bundle plugin loader transform compile emit "
         "test spec mock fixture snapshot bench api http socket proxy retry timeout limit pool channel").split()
EXTS_SRC = [".ts", ".ts", ".tsx", ".js", ".js", ".py", ".go", ".rs", ".c", ".h", ".java", ".cs", ".css", ".json", ".md"]
PKG_PREFIX = ("is get to has array string object fast micro tiny node react vue babel eslint postcss webpack "
              "rollup es core json yaml path fs glob chalk debug ms semver uuid async stream buffer util types "
              "lodash mime color ansi strip wrap escape safe deep merge clone pick once inherits graceful").split()
PKG_SUFFIX = ["", "", "", "-utils", "-core", "-parser", "-plugin", "js", "-loader", "-cli", "-types", "-compat",
              "-polyfill", "-regex", "-browserify", "-runtime", "-helpers", "2", "-es5"]
SCOPES = ["@types", "@babel", "@eslint", "@jest", "@smithy", "@aws-sdk", "@angular", "@vue", "@rollup", "@esbuild"]
PROJECT_WORDS = ("acme billing inventory portal gateway ledger atlas orion nimbus beacon harbor summit lumen "
                 "vertex quartz delta kappa falcon otter maple cedar willow aurora zenith").split()
NONASCII = ["café", "データ", "Übersicht", "résumé", "naïve", "ñandú", "Ελληνικά", "日本語"]
LICENSES = 6  # shared license texts (Apache-2.0, ISC, BSD-3, ... identical bytes across packages)


def lognormal_size(rng, median, sigma, lo=16, hi=64 << 20):
    return int(min(hi, max(lo, rng.lognormvariate(math.log(median), sigma))))


class Plan:
    """Entries: (relpath, cid) for regular files (cid -1: empty), ('LINK', relpath, target relpath) for hard links."""

    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.sizes = []          # cid -> size
        self.dirs = []           # relative dirs, parents first
        self.dirset = set()
        self.files = []          # (relpath, cid)  cid == -1: empty file
        self.links = []          # (relpath, target relpath)
        self.uses = {}           # cid -> list of relpaths (regular files only)
        self.seen_names = set()

    def content(self, size):
        self.sizes.append(size)
        return len(self.sizes) - 1

    def mkdir(self, d):
        parts = d.split("/")
        for i in range(1, len(parts) + 1):
            p = "/".join(parts[:i])
            if p not in self.dirset:
                self.dirset.add(p)
                self.dirs.append(p)

    def add(self, d, name, cid):
        self.mkdir(d)
        path = f"{d}/{name}"
        if path in self.seen_names:
            stem, dot, ext = name.rpartition(".")
            k = 2
            while f"{d}/{name}" in self.seen_names:
                name = f"{stem or ext}-{k}{dot}{ext if stem else ''}"
                k += 1
            path = f"{d}/{name}"
        self.seen_names.add(path)
        self.files.append((path, cid))
        if cid >= 0:
            self.uses.setdefault(cid, []).append(path)
        return path

    # ---- names -------------------------------------------------------------------------------------------
    def ident(self, lo=1, hi=3, style=None):
        r = self.rng
        ws = [r.choice(WORDS) for _ in range(r.randint(lo, hi))]
        style = style or r.choice(("camel", "kebab", "snake", "pascal"))
        if style == "camel":
            return ws[0] + "".join(w.title() for w in ws[1:])
        if style == "pascal":
            return "".join(w.title() for w in ws)
        if style == "snake":
            return "_".join(ws)
        return "-".join(ws)

    def src_name(self):
        r = self.rng
        n = self.ident(1, 4 if r.random() < 0.9 else 9)
        if r.random() < 0.15:
            n += r.choice([".test", ".spec", ".d", ".module", ".stories", ".generated"])
        if r.random() < 0.004:
            n = r.choice(NONASCII) + "-" + n
        return n + r.choice(EXTS_SRC)

    def pkg_name(self):
        r = self.rng
        n = r.choice(PKG_PREFIX) + r.choice(PKG_SUFFIX)
        if r.random() < 0.5:
            n = r.choice(PKG_PREFIX) + "-" + n
        if r.random() < 0.25:
            n = r.choice(SCOPES) + "/" + n
        return n


def build_plan(a):
    p = Plan(a)
    r = p.rng
    size_med, sigma = a.median_kib * 1024, a.sigma

    license_cids = [p.content(r.randint(700, 11_500)) for _ in range(LICENSES)]

    # ---- package pool: a package is a list of (relative file path, cid), installed `copies` times ---------
    def make_package(name):
        files = [("package.json", p.content(lognormal_size(r, 1200, 0.6))),
                 ("README.md", p.content(lognormal_size(r, 4000, 1.0)))]
        if r.random() < 0.45:
            files.append(("LICENSE", r.choice(license_cids)))   # identical text across packages
        else:
            files.append(("LICENSE", p.content(r.randint(1000, 1200))))
        if r.random() < 0.3:
            files.append(("CHANGELOG.md", p.content(lognormal_size(r, 9000, 1.2))))
        n = max(1, int(r.lognormvariate(math.log(7), 0.9)))
        base = name.split("/")[-1]
        for _ in range(n):
            d = r.choice(["lib", "lib", "dist", "src", "build", "esm", "cjs", "lib/internal", "dist/types", ""])
            nm = p.ident(1, 3) + r.choice([".js", ".js", ".d.ts", ".mjs", ".cjs", ".js.map", ".json"])
            files.append(((d + "/" if d else "") + nm, p.content(lognormal_size(r, size_med, sigma))))
        if r.random() < 0.3:
            files.append((f"dist/{base}.min.js", p.content(lognormal_size(r, 30_000, 1.2))))
        if r.random() < 0.05:
            files.append((f"bin/{base}.node", p.content(lognormal_size(r, 400_000, 1.0))))
        return files

    def copies_for_shared():
        x = r.random()
        if x < 0.55: return 2
        if x < 0.75: return 3
        if x < 0.85: return 4
        if x < 0.97: return r.randint(5, 10)
        return r.randint(11, 40)

    # Shared packages until their files make about `groups_pkg` groups; the rest of node_modules is unique
    # (another version of a package is other bytes).
    target_groups = a.groups
    vendor_groups = target_groups // 12
    pkg_groups_goal = target_groups - vendor_groups - LICENSES
    shared = []      # (name, files, copies)
    got = 0
    while got < pkg_groups_goal:
        name = p.pkg_name()
        files = make_package(name)
        c = copies_for_shared()
        shared.append((name, files, c))
        got += sum(1 for _, cid in files if cid not in license_cids)

    n_proj = a.projects
    projects = []
    used = set()
    for i in range(n_proj):
        while True:
            nm = f"{r.choice(PROJECT_WORDS)}-{r.choice(WORDS)}"
            if r.random() < 0.1:
                nm += "-" + r.choice(NONASCII)
            if nm not in used:
                used.add(nm)
                break
        projects.append(nm)

    # Installs of shared packages: each copy into a distinct (project, nesting) place.
    installs = {i: [] for i in range(n_proj)}   # project -> [(pkgname, files)]
    for name, files, c in shared:
        for proj in r.sample(range(n_proj), min(c, n_proj)) if c <= n_proj else [r.randrange(n_proj) for _ in range(c)]:
            installs[proj].append((name, files))

    budget = a.files
    n_links = int(budget * a.link_frac)
    n_empty = int(budget * a.empty_frac)
    shared_files = sum(len(f) * c for _, f, c in shared)
    vendor_files = vendor_groups * 3  # about 3 copies per vendored file (2..6)
    regular_budget = budget - n_links - n_empty - shared_files - vendor_files
    per_proj = regular_budget // n_proj

    # ---- vendored files: one content copied into the vendor/ folders of several projects ---------------
    vendor = []
    for _ in range(vendor_groups):
        nm = r.choice(["jquery", "bootstrap", "d3", "three", "sqlite3", "zlib", "stb_image", "miniz", "lua",
                       "json", "fmt", "spdlog", "catch", "doctest", "cjson", "yyjson"]) + r.choice(
            [".min.js", ".js", ".h", ".c", ".hpp", ".css", ".wasm", "-amalgamation.c"])
        cid = p.content(lognormal_size(r, size_med * 2, sigma))
        k = r.choice([2, 2, 2, 3, 3, 4, 5, 6])
        vendor.append((nm, cid, r.sample(range(n_proj), k)))

    placed_vendor = {i: [] for i in range(n_proj)}
    for nm, cid, projs in vendor:
        for j in projs:
            placed_vendor[j].append((nm, cid))

    empties_left = n_empty
    for i, proj in enumerate(projects):
        left = per_proj
        # node_modules: shared installs + unique packages (~40 % of the project's own budget)
        nm_root = f"{proj}/node_modules"
        for name, files in installs[i]:
            # Some installs are nested under another package (npm's duplicated dependency versions).
            base = nm_root
            if r.random() < 0.2:
                base = f"{nm_root}/{p.pkg_name()}/node_modules"
            for rel, cid in files:
                d, _, fn = f"{base}/{name}/{rel}".rpartition("/")
                p.add(d, fn, cid)
        nm_budget = int(left * 0.38)
        while nm_budget > 0:
            name = p.pkg_name()
            files = make_package(name)
            base = nm_root if r.random() < 0.8 else f"{nm_root}/{p.pkg_name()}/node_modules"
            for rel, cid in files:
                d, _, fn = f"{base}/{name}/{rel}".rpartition("/")
                p.add(d, fn, cid)
            nm_budget -= len(files)
        left -= int(left * 0.38)
        # vendor/
        for nm, cid in placed_vendor[i]:
            sub = r.choice(["vendor", "vendor/js", "third_party", f"third_party/{nm.split('.')[0]}", "public/vendor"])
            p.add(f"{proj}/{sub}", nm if r.random() < 0.8 else f"{nm.split('.')[0]}-copy.{nm.split('.', 1)[-1]}", cid)
        # git objects: ~30 % of the rest; a few pack files are the long tail
        git_n = int(left * 0.3)
        for _ in range(git_n):
            h = r.getrandbits(160).to_bytes(20, "big").hex()
            p.add(f"{proj}/{proj}.git/objects/{h[:2]}", h[2:], p.content(lognormal_size(r, 900, 1.1)))
        left -= git_n
        # docs/ and assets/
        docs_n = int(left * 0.1)
        for _ in range(docs_n):
            d = f"{proj}/{r.choice(['docs', 'docs/guide', 'docs/api', 'assets/img', 'assets/fonts', 'public'])}"
            p.add(d, p.ident(1, 3, "kebab") + r.choice([".md", ".png", ".svg", ".woff2", ".html", ".rst"]),
                  p.content(lognormal_size(r, size_med * 3, sigma)))
        left -= docs_n
        # src/: nested modules, mostly unique files; empty __init__.py here and there
        mods = []
        while left > 0:
            if mods and r.random() < 0.5:
                # a submodule of an existing module: fewer, fuller and deeper folders
                d = r.choice(mods) + "/" + p.ident(1, 2, r.choice(["kebab", "snake", "camel"]))
            else:
                depth = r.randint(1, 4)
                d = f"{proj}/src/" + "/".join(p.ident(1, 2, r.choice(["kebab", "snake", "camel"])) for _ in range(depth))
            n = min(left, max(1, int(r.lognormvariate(math.log(14), 0.8))))
            for _ in range(n):
                p.add(d, p.src_name(), p.content(lognormal_size(r, size_med, sigma)))
            mods.append(d)
            left -= n
        q = empties_left // (n_proj - i)
        for _ in range(q):
            p.add(r.choice(mods), r.choice(["__init__.py", "__init__.py", "py.typed", "placeholder.txt", "EMPTY"]), -1)
        empties_left -= q

    # ---- the long tail: pack files fill the total up to --total-gb ---------------------------------------
    distinct = sum(p.sizes[cid] for _, cid in p.files if cid >= 0)   # apparent bytes: every inode once
    target = int(a.total_gb * 1e9)
    n_big = max(1, a.projects)
    if target > distinct:
        rest = target - distinct
        weights = [r.paretovariate(1.2) for _ in range(n_big)]
        s = sum(weights)
        for k, w in enumerate(weights):
            proj = projects[k % n_proj]
            size = max(1, int(rest * w / s))
            h = r.getrandbits(160).to_bytes(20, "big").hex()
            p.add(f"{proj}/{proj}.git/objects/pack", f"pack-{h}.pack", p.content(size))

    # ---- hard links: extra names for existing files (about a third of them duplicated files) ----------
    regular = [(path, cid) for path, cid in p.files if cid >= 0]
    for _ in range(n_links):
        path, cid = r.choice(regular)
        d, _, fn = path.rpartition("/")
        if r.random() < 0.5:
            d = r.choice(p.dirs)
        stem, dot, ext = fn.rpartition(".")
        name = f"{stem or fn}-link{r.randint(1, 9)}{dot}{ext if stem else ''}"
        lp = f"{d}/{name}"
        if lp in p.seen_names or lp in p.dirset:
            continue
        p.seen_names.add(lp)
        p.links.append((lp, path))
    return p


def content_bytes(pool, cid, size, seed):
    """Distinct cids differ in their first 16 bytes; the rest is a slice of the seeded pool."""
    head = struct.pack("<QQ", cid ^ 0x9E3779B97F4A7C15, (cid * 0x2545F4914F6CDD1D + seed) & (2**64 - 1))
    if size <= 16:
        return head[:size]
    n = size - 16
    off = (cid * 2654435761 + seed) % (POOL_BYTES - 1)
    if off + n <= POOL_BYTES:
        return head + pool[off:off + n]
    parts = [head]
    while n > 0:
        take = min(n, POOL_BYTES - off)
        parts.append(pool[off:off + take])
        n -= take
        off = 0
    return b"".join(parts)


def write_worker(root, files, sizes, seed, pool_seed):
    pool = memoryview(random.Random(pool_seed).randbytes(POOL_BYTES))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for rel, cid in files:
        fd = os.open(os.path.join(root, rel), flags, 0o644)
        try:
            if cid >= 0:
                size = sizes[cid]
                if size > (8 << 20):
                    written = 0
                    while written < size:
                        chunk = min(8 << 20, size - written)
                        data = content_bytes(pool, cid + written * 7919, chunk, seed) if written else content_bytes(pool, cid, chunk, seed)
                        os.write(fd, data)
                        written += chunk
                else:
                    data = content_bytes(pool, cid, size, seed)
                    mv = memoryview(data)
                    while mv:
                        mv = mv[os.write(fd, mv):]
        finally:
            os.close(fd)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=1_000_000, help="directory entries (files, hard-link names, empty files)")
    ap.add_argument("--total-gb", type=float, default=6.3, help="apparent size in 10^9 bytes, each inode once (du -sb --apparent-size)")
    ap.add_argument("--groups", type=int, default=33_000, help="duplicate groups to aim for")
    ap.add_argument("--projects", type=int, default=60)
    ap.add_argument("--median-kib", type=float, default=2.0)
    ap.add_argument("--sigma", type=float, default=1.3)
    ap.add_argument("--link-frac", type=float, default=0.005)
    ap.add_argument("--empty-frac", type=float, default=0.003)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--plan-only", action="store_true", help="print the stats, write nothing")
    a = ap.parse_args()

    t0 = time.time()
    p = build_plan(a)
    # Scale down the largest files if the plan overshoots (it tops up with pack files otherwise).
    counts = {}
    for _, cid in p.files:
        if cid >= 0:
            counts[cid] = counts.get(cid, 0) + 1
    distinct_bytes = sum(p.sizes[c] for c in counts)
    groups = [c for c, k in counts.items() if k >= 2 and p.sizes[c] > 0]
    size_set = {}
    for c in counts:
        size_set[p.sizes[c]] = size_set.get(p.sizes[c], 0) + counts[c]
    entries = len(p.files) + len(p.links)
    sizes_sorted = sorted(p.sizes[c] for c in counts)
    stats = {
        "entries": entries, "regular_files": sum(1 for _, c in p.files if c >= 0), "empty_files": sum(1 for _, c in p.files if c < 0),
        "hardlink_names": len(p.links), "folders": len(p.dirs), "distinct_contents": len(counts),
        "distinct_bytes": distinct_bytes, "apparent_bytes": sum(p.sizes[c] * k for c, k in counts.items()),
        "duplicate_groups": len(groups), "files_in_groups": sum(counts[c] for c in groups),
        "reclaimable_bytes": sum(p.sizes[c] * (counts[c] - 1) for c in groups),
        "largest_group": max((counts[c] for c in groups), default=0),
        "median_size": sizes_sorted[len(sizes_sorted) // 2], "max_size": sizes_sorted[-1],
        "distinct_sizes": len(size_set), "files_with_unique_size": sum(1 for k in size_set.values() if k == 1),
        "max_depth": max(d.count("/") + 1 for d in p.dirs),
        "max_name_bytes": max(len(x.rpartition("/")[2].encode()) for x, _ in p.files),
        "seed": a.seed, "args": vars(a),
    }
    print(json.dumps({k: v for k, v in stats.items() if k != "args"}, indent=1), file=sys.stderr)
    print(f"plan: {time.time() - t0:.1f} s", file=sys.stderr)
    if a.plan_only:
        return

    out = os.path.abspath(a.out)
    if os.path.exists(out):
        sys.exit(f"{out} exists; remove it first")
    free = shutil.disk_usage(os.path.dirname(out)).free
    need = distinct_bytes + entries * 4096 + (1 << 30)
    if free < need:
        sys.exit(f"not enough space in {os.path.dirname(out)}: {free / 2**30:.1f} GiB free, {need / 2**30:.1f} GiB needed")
    part = out + ".partial"
    if os.path.exists(part):
        shutil.rmtree(part)
    os.mkdir(part)
    for d in p.dirs:
        os.mkdir(os.path.join(part, d))
    print(f"folders: {time.time() - t0:.1f} s", file=sys.stderr)
    jobs = max(1, a.jobs)
    shards = [p.files[k::jobs] for k in range(jobs)]
    procs = [Process(target=write_worker, args=(part, s, p.sizes, a.seed, a.seed * 1000003 + 1)) for s in shards]
    for pr in procs:
        pr.start()
    for pr in procs:
        pr.join()
        if pr.exitcode:
            sys.exit(f"writer failed with {pr.exitcode}")
    print(f"files: {time.time() - t0:.1f} s", file=sys.stderr)
    for lp, target in p.links:
        os.link(os.path.join(part, target), os.path.join(part, lp))
    os.rename(part, out)

    # Manifest (compare.py format): one entry per distinct inode; hard-link names in `links`.
    links_of = {}
    for lp, target in p.links:
        links_of.setdefault(target, []).append(lp)
    mgroups = []
    for c in groups:
        mgroups.append({"size": p.sizes[c], "files": [{"path": x, "links": links_of.get(x, [])} for x in p.uses[c]]})
    hardlinks = [[t] + ls for t, ls in links_of.items()]
    name = os.path.basename(out.rstrip("/"))
    with open(os.path.join(os.path.dirname(out), name + ".manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"generator": "gen_sourcetree.py", "stats": stats, "groups": mgroups, "near_twins": [],
                   "hardlinks": hardlinks}, f)
    print(f"done: {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
