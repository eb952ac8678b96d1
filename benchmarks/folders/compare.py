#!/usr/bin/env python3
"""Agreement of dedup's folder groups with rmlint -D's, against an independent oracle (#20).

    compare.py TREE DEDUP_FOLDERS.json DEDUP_IGNORE.json RMLINT_DJ.json RMLINT_D.json [MANIFEST.json]

Like is compared with like: `dedup --folders` (names count) with `rmlint -D -j` (--honour-dir-layout), and
`dedup --folders-ignore-names` with `rmlint -D` (rmlint's default: the same data, names ignored).

The tools report differently shaped but equivalent answers, so each report is first normalised:
- names kept: a reported group {A, B} also says A/x = B/x for every sub-folder x; the report is closed under that
  (union-find), so "topmost only" choices (which copy's sub-folder is paired with which) do not count as disagreement;
- names ignored: a folder whose only content is one sub-folder holds the same data as it; rmlint reports such
  chains (copies/1 and copies/1/d3/d9 as duplicates of each other), dedup only the top, so each folder is mapped
  to the top of its chain.
The oracle hashes every file itself (BLAKE2b, hard links read once) and classes folders by each definition:
names kept, with and without empty files and empty folders (rmlint ignores empty files), and names ignored.
Every folder reported by one tool only is explained by which definition its class holds under. The manifest
(gen_copied_folders.py) lists every exact copy set: each must be one class of dedup's (names kept) report, and
each partial copy must be listed by dedup as a partial overlap with its original.
Exit status 1 when dedup reports a folder the oracle does not class with its group, or misses a manifest copy.
"""

import hashlib
import json
import os
import sys
from collections import defaultdict


def hash_file(path, cache, st):
    key = (st.st_dev, st.st_ino)
    if key not in cache:
        h = hashlib.blake2b(digest_size=16)
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        cache[key] = h.hexdigest()
    return cache[key]


def walk(root):
    """Every folder below root: its files (name -> (digest, size)), links (name -> target) and sub-folders."""
    folders = {}
    cache = {}
    DANGLING.clear()
    for dirpath, dirnames, filenames in os.walk(root):
        files, links = {}, {}
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if os.path.islink(p):
                links[name] = os.readlink(p)
                if not os.path.exists(p):
                    DANGLING.add(dirpath)
            else:
                files[name] = (hash_file(p, cache, st), st.st_size)
        dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
        folders[dirpath] = (files, links, list(dirnames))
    return folders


def signatures(folders):
    """Per folder: named (everything), named without empty files/folders (rmlint -Dj), multiset of non-empty data."""
    named, named_ne, data, nonempty_count = {}, {}, {}, {}
    for path in sorted(folders, key=lambda p: -p.count(os.sep)):
        files, links, children = folders[path]
        items = sorted(("f", n, d) for n, (d, _) in files.items()) + sorted(("l", n, t) for n, t in links.items())
        sub = sorted(("d", c, named[os.path.join(path, c)]) for c in children)
        named[path] = hashlib.blake2b(repr(items + sub).encode(), digest_size=16).hexdigest()
        items_ne = sorted(("f", n, d) for n, (d, s) in files.items() if s > 0) + sorted(("l", n, t) for n, t in links.items())
        sub_ne = sorted(("d", c, named_ne[os.path.join(path, c)]) for c in children if nonempty_count[os.path.join(path, c)] > 0)
        named_ne[path] = hashlib.blake2b(repr(items_ne + sub_ne).encode(), digest_size=16).hexdigest()
        bag = [d for d, s in files.values() if s > 0]
        for c in children:
            bag.extend(data[os.path.join(path, c)])
        data[path] = bag
        nonempty_count[path] = len(bag) + len(links)
    return named, named_ne, {p: tuple(sorted(b)) for p, b in data.items()}


class UnionFind:
    def __init__(self):
        self.parent = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)

    def classes(self):
        out = defaultdict(set)
        for x in self.parent:
            out[self.find(x)].add(x)
        return [frozenset(c) for c in out.values() if len(c) > 1]


def dedup_groups(path):
    d = json.load(open(path))
    exact = [[f["path"] for f in g["folders"]] for g in d.get("folderGroups", []) if "differences" not in g]
    partial = [([f["path"] for f in g["folders"]], g["differences"]) for g in d.get("folderGroups", []) if "differences" in g]
    return exact, partial


def rmlint_groups(path):
    groups = defaultdict(list)
    for e in json.load(open(path)):
        if isinstance(e, dict) and e.get("type") == "duplicate_dir":
            groups[e["checksum"]].append(e["path"])
    return [v for v in groups.values() if len(v) > 1]


def split(groups, sig):
    """Each group split by the oracle's signature; returns the parts and how many groups had to be split."""
    parts, mixed = [], 0
    for g in groups:
        by = defaultdict(list)
        for p in g:
            by[sig[p]].append(p)
        mixed += len(by) > 1
        parts.extend(v for v in by.values() if len(v) > 1)
    return parts, mixed


def close_named(groups, folders):
    """The report closed under "equal folders have equal sub-folders"."""
    uf = UnionFind()
    for g in groups:
        first = g[0]
        for other in g[1:]:
            for sub in folders:
                if sub == first or sub.startswith(first + os.sep):
                    rel = sub[len(first):]
                    uf.union(sub, other + rel)
    return uf.classes()


def chain_top(path, folders, data):
    """The highest folder holding exactly the same data as path (a parent whose only data is this folder's)."""
    while True:
        parent = os.path.dirname(path)
        if parent not in folders or data[parent] != data[path]:
            return path
        path = parent


def close_ignore(groups, folders, data):
    uf = UnionFind()
    for g in groups:
        tops = [chain_top(p, folders, data) for p in g]
        for t in tops[1:]:
            uf.union(tops[0], t)
    return uf.classes()


def member_of(classes):
    return {f: c for c in classes for f in c}


DANGLING = set()  # folders holding a symbolic link to nothing (rmlint reports it as a bad link)
FEATURES = {}  # folder -> what its subtree holds that the tools treat differently (set in main)


def explain(folder, other, oracle_of):
    """Why the other tool does not class this folder (or classes it with other partners)."""
    anc = folder
    while anc != os.path.dirname(anc):
        anc = os.path.dirname(anc)
        if anc in other:
            return "the other tool reports an enclosing folder"
    twins = oracle_of.get(folder, frozenset())
    if any(t in other for t in twins if t != folder):
        return "the other tool reports its twins (same oracle class) and leaves this one out: it lies in or pairs with a reported copy (topmost choice)"
    if not twins:
        return "NOT EQUAL to any folder by the oracle"
    return "missed: the oracle has twins, the other tool reports none of them; the folder holds " + (FEATURES.get(folder) or "nothing special")


def report(title, a_name, a, b_name, b, oracle_classes):
    fa, fb = member_of(a), member_of(b)
    oracle_of = member_of(oracle_classes)
    same_classes = len(set(a) & set(b))
    both = set(fa) & set(fb)
    agree = sum(1 for f in both if fa[f] == fb[f])
    print(f"\n### {title}")
    print(f"| | {a_name} | {b_name} |\n|---|---:|---:|")
    print(f"| classes (after normalising) | {len(a)} | {len(b)} |\n| folders in a class | {len(fa)} | {len(fb)} |")
    print(f"| classes equal to the other tool's | {same_classes} | {same_classes} |")
    print(f"| folders classed by both, same partners | {agree} | {agree} |")
    print(f"| folders classed by both, other partners | {len(both) - agree} | {len(both) - agree} |")
    print(f"| folders only this tool classes | {len(set(fa) - set(fb))} | {len(set(fb) - set(fa))} |")
    inside = sum(1 for f in both if fa[f] != fb[f] and fa[f] | fb[f] <= oracle_of.get(f, frozenset()))
    print(f"\nfolders classed with other partners whose partners are all in its oracle class (a topmost choice): {inside} of {len(both) - agree}")
    for name, only, other in ((a_name, set(fa) - set(fb), fb), (b_name, set(fb) - set(fa), fa)):
        why = defaultdict(list)
        for f in only:
            why[explain(f, other, oracle_of)].append(f)
        for reason, fs in sorted(why.items()):
            print(f"- only {name}: {len(fs)}: {reason} (e.g. {os.path.basename(os.path.dirname(sorted(fs)[0]))}/{os.path.basename(sorted(fs)[0])})")


def main():
    tree, ded_named, ded_ignore, rm_j, rm_d = sys.argv[1:6]
    manifest = sys.argv[6] if len(sys.argv) > 6 else None
    tree = os.path.abspath(tree)
    folders = walk(tree)
    named, named_ne, data = signatures(folders)
    for path in sorted(folders, key=lambda p: -p.count(os.sep)):
        files, links, children = folders[path]
        links_below = bool(links) or any("links" in FEATURES.get(os.path.join(path, c), "") for c in children)
        dangling_below = path in DANGLING or any("dangling" in FEATURES.get(os.path.join(path, c), "") for c in children)
        empty_below = any(s == 0 for _, s in files.values()) or any("empty" in FEATURES.get(os.path.join(path, c), "") for c in children)
        FEATURES[path] = " and ".join(x for x, on in (("dangling symbolic links", dangling_below), ("symbolic links", links_below and not dangling_below), ("empty files", empty_below)) if on)
    nonempty = {p for p, d in data.items() if d}
    failures = 0

    def oracle(sig):
        by = defaultdict(set)
        for p, s in sig.items():
            if p in nonempty and p != tree:
                by[s].add(p)
        return [frozenset(v) for v in by.values() if len(v) > 1]

    dn, dn_partial = dedup_groups(ded_named)
    truth = oracle(named)
    dn_parts, dn_mixed = split(dn, named)
    rj_parts, rj_mixed = split(rmlint_groups(rm_j), named_ne)
    failures += dn_mixed
    a, b = close_named(dn_parts, folders), close_named(rj_parts, folders)
    print(f"## {os.path.basename(tree)}: {len(folders)} folders")
    print(f"groups whose folders differ in layout or content (split before closing): dedup {dn_mixed}, rmlint -Dj {rj_mixed} "
          "(rmlint -j pairs a folder with a single-child chain holding the same files one or two levels deeper)")
    a = [c & nonempty for c in a if len(c & nonempty) > 1]  # empty folders are equal but never reported alone
    b = [c & nonempty for c in b if len(c & nonempty) > 1]
    report("names kept: dedup --folders vs rmlint -D -j (closed under sub-folders)", "dedup", a, "rmlint -Dj", b, truth)
    wrong = [c for c in a if c not in truth]
    missed = [c for c in truth if c not in a]
    print(f"\noracle (names + empty files): {len(truth)} classes; dedup's closed report equals it: {not wrong and not missed} "
          f"(classes not in the oracle: {len(wrong)}, oracle classes dedup lacks: {len(missed)})")
    failures += len(wrong) + len(missed)

    di, _ = dedup_groups(ded_ignore)
    data_sig = {p: hashlib.blake2b(repr(d).encode(), digest_size=16).hexdigest() for p, d in data.items()}
    tops = {p for p in folders if chain_top(p, folders, data) == p}
    ai, bi = close_ignore(di, folders, data), close_ignore(rmlint_groups(rm_d), folders, data)
    report("names ignored: dedup --folders-ignore-names vs rmlint -D (chains mapped to their top)", "dedup", ai, "rmlint -D", bi,
           [c for c in oracle(data_sig) if all(f in tops for f in c)] + [c for c in oracle(data_sig) if not all(f in tops for f in c)])
    unsound = [c for c in ai if len({data[f] for f in c}) > 1]
    print(f"\ndedup classes whose folders do not hold the same data (oracle): {len(unsound)}")
    failures += len(unsound)
    _ = tops

    if manifest:
        m = json.load(open(manifest))
        cls = member_of(a)
        lost = [s for s in m["exactSets"] if len({id(cls.get(os.path.join(tree, p))) for p in s}) != 1 or os.path.join(tree, s[0]) not in cls]
        pairs = {frozenset(f[len(tree) + 1:] for f in fs) for fs, _ in dn_partial}
        # A partial copy is listed with its original, or (topmost) with an exact copy of its original.
        partial_found = 0
        for p in m["partial"]:
            # Listed with its original or an exact copy of it; or an exact twin of it (the same partial copy made twice) is.
            partners = {p["of"]} | {os.path.relpath(f, tree) for f in cls.get(os.path.join(tree, p["of"]), ())}
            selves = {p["copy"]} | {os.path.relpath(f, tree) for f in cls.get(os.path.join(tree, p["copy"]), ())}
            hit = any(
                any(x == c or c.startswith(x + "/") for x in pair) and any(o == y or o.startswith(y + "/") for y in pair for o in partners)
                for pair in pairs for c in selves)
            partial_found += hit
            if not hit:
                print(f"partial copy not listed: {p}")
        print(f"\nmanifest: {len(m['exactSets'])} exact copy sets, each one dedup class: {len(m['exactSets']) - len(lost)} "
              f"(missed: {len(lost)}{', e.g. ' + str(lost[0]) if lost else ''}); "
              f"{len(m['partial'])} partial copies listed as overlaps: {partial_found}")
        failures += len(lost)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
