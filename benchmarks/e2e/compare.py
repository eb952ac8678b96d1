#!/usr/bin/env python3
"""Parse duplicate-finder outputs into canonical groups, compare them, and
render the benchmark table (stdlib only).

    compare.py check --tree T [--manifest M] [--dedup F] [--jdupes F]
                     [--rdfind F] [--rmlint F] [--fdupes F] [--show N]
    compare.py canon --tree T --TOOL F          # print canonical groups
    compare.py table --results results.tsv [--baseline jdupes] [--tree-bytes B]

Canonical form: a group is the set of distinct files (inodes, from
os.lstat -> st_dev:st_ino, i.e. `stat -c %d:%i`) that a tool reports as
identical; every hard-link name folds onto its inode.  Sets with fewer than
two inodes (e.g. rmlint's "a file and its hard link" sets) are dropped and
counted.  Groups are printed as sorted lists of absolute paths, one name per
inode (the smallest name seen by any source).

Input formats (as produced by run.sh):
  dedup   JSON contract {"groups":[{"size":..,"files":[{"path":..,"links":[..]}]}],"summary":{..}}
  jdupes  `jdupes -r -q TREE` stdout: one path per line, blank line between sets
  fdupes  `fdupes -r -q -n TREE` stdout: same as jdupes
  rdfind  `rdfind -outputname F` results file: "duptype id depth size device inode priority name"
  rmlint  `rmlint -T df TREE -o json:F`: JSON list, header, one object per file, footer
"""

import argparse
import json
import os
import statistics
import sys
from collections import OrderedDict

TOOLS = ["dedup", "jdupes", "rdfind", "rmlint", "fdupes"]


# -- parsers: each returns (groups, meta); groups = list of lists of paths --

def parse_manifest(path, tree):
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    groups = []
    for g in m["groups"]:
        names = []
        for fe in g["files"]:
            names.append(os.path.join(tree, fe["path"]))
            names.extend(os.path.join(tree, l) for l in fe.get("links", []))
        groups.append(names)
    return groups, {"manifest": m}


def parse_dedup(path, tree=None):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    groups, structured = [], []
    for g in d.get("groups", []):
        names, files = [], []
        for fe in g.get("files", []):
            links = list(fe.get("links") or [])
            names.append(fe["path"])
            names.extend(links)
            files.append((fe["path"], links))
        groups.append(names)
        structured.append((g.get("size"), files))
    return groups, {"summary": d.get("summary", {}), "structured": structured}


def _blank_line_sets(path):
    groups, cur = [], []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.rstrip(b"\r\n")
            if not line:
                if cur:
                    groups.append(cur)
                cur = []
                continue
            cur.append(os.fsdecode(line))
    if cur:
        groups.append(cur)
    return groups


def parse_jdupes(path, tree=None):
    return _blank_line_sets(path), {}


parse_fdupes = parse_jdupes


def parse_rdfind(path, tree=None):
    groups = OrderedDict()
    with open(path, "rb") as f:
        for raw in f:
            line = os.fsdecode(raw.rstrip(b"\r\n"))
            if not line or line.startswith("#"):
                continue
            parts = line.split(" ", 7)
            if len(parts) != 8:
                raise ValueError(f"{path}: unexpected rdfind line: {line!r}")
            gid = abs(int(parts[1]))
            groups.setdefault(gid, []).append(parts[7])
    return list(groups.values()), {}


def parse_rmlint(path, tree=None):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        d = json.load(f)
    groups, cur, key, other = [], [], None, {}
    footer = {}
    for e in d:
        t = e.get("type")
        if t is None:
            if "total_files" in e:
                footer = e
            continue
        if t != "duplicate_file":
            other[t] = other.get(t, 0) + 1
            continue
        k = (e.get("size"), e.get("checksum"))
        # a new set starts with its original, or when size/checksum change
        if cur and (e.get("is_original") or k != key):
            groups.append(cur)
            cur = []
        cur.append(e["path"])
        key = k
    if cur:
        groups.append(cur)
    return groups, {"footer": footer, "other_lint": other}


PARSERS = {"dedup": parse_dedup, "jdupes": parse_jdupes, "rdfind": parse_rdfind,
           "rmlint": parse_rmlint, "fdupes": parse_fdupes}


# -- canonicalisation -------------------------------------------------------

class Inodes:
    """Maps paths to st_dev:st_ino and remembers every name seen per inode."""

    def __init__(self):
        self.cache = {}
        self.names = {}
        self.sizes = {}
        self.errors = []

    def key(self, p):
        p = os.path.abspath(p)
        if p not in self.cache:
            try:
                st = os.lstat(p)
                k = (st.st_dev, st.st_ino)
                self.sizes[k] = st.st_size
            except OSError as e:
                k = ("missing", p)
                self.errors.append(f"{p}: {e.strerror}")
            self.cache[p] = k
            self.names.setdefault(k, set()).add(p)
        return self.cache[p]

    def rep(self, k):
        return min(self.names[k])


class Canon:
    def __init__(self, name, raw_groups, inodes):
        self.name = name
        self.raw_groups = raw_groups
        self.sets = set()
        self.degenerate = 0      # sets that fold to < 2 inodes (pure hard links)
        self.extra_names = 0     # names beyond the first per inode in a set
        self.multi = 0           # inodes listed in more than one set
        seen = {}
        for g in raw_groups:
            ks = [inodes.key(p) for p in g]
            s = frozenset(ks)
            self.extra_names += len(ks) - len(s)
            if len(s) < 2:
                self.degenerate += 1
                continue
            for k in s:
                seen[k] = seen.get(k, 0) + 1
            self.sets.add(s)
        self.multi = sum(1 for v in seen.values() if v > 1)

    def files(self):
        return sum(len(s) for s in self.sets)


def fmt_set(s, inodes):
    return sorted(inodes.rep(k) for k in s)


def describe_diff(a, b, inodes, show, tree):
    """Explain groups in a but not in b, relative to b's partition."""
    out = []
    where = {}
    for s in b.sets:
        for k in s:
            where[k] = s
    for s in sorted(a.sets - b.sets, key=lambda s: fmt_set(s, inodes))[:show]:
        paths = fmt_set(s, inodes)
        owners = {where.get(k) for k in s}
        if owners == {None}:
            why = f"not reported by {b.name}"
        elif len(owners) == 1:
            why = f"{b.name} has it as part of a larger group ({len(next(iter(owners)))} files)"
        else:
            why = f"{b.name} splits it ({len(owners - {None})} groups" + \
                  (", some files not reported)" if None in owners else ")")
        size = inodes.sizes.get(next(iter(s)), "?")
        rel = [os.path.relpath(p, tree) if tree else p for p in paths]
        out.append(f"    - size {size}: {rel} -- {why}")
    return out


def dedup_contract_checks(meta, inodes, manifest_links):
    """Checks that only make sense for dedup's JSON contract."""
    problems, notes = [], []
    summ = meta["summary"]
    structured = meta["structured"]
    if summ.get("groups") is not None and summ.get("groups") != len(structured):
        problems.append(f"summary.groups={summ.get('groups')} but {len(structured)} groups listed")
    wasted = 0
    for size, files in structured:
        if size == 0:
            problems.append("empty-file group reported")
        keys = []
        for p, links in files:
            k = inodes.key(p)
            keys.append(k)
            real = inodes.sizes.get(k)
            if real is not None and size is not None and real != size:
                problems.append(f"{p}: group size {size} but file has {real} bytes")
            for l in links:
                if inodes.key(l) != k:
                    problems.append(f"{l}: listed as a link of {p} but is a different file")
            have = {os.path.abspath(x) for x in [p] + links}
            want = manifest_links.get(k)
            if want and not want <= have:
                problems.append(f"{p}: hard-link names missing from links: {sorted(want - have)}")
        if len(set(keys)) < 2:
            problems.append(f"group of size {size} has fewer than two distinct files: {[p for p, _ in files]}")
        if len(set(keys)) != len(keys):
            problems.append(f"group of size {size} lists the same file (inode) more than once: "
                            f"{[p for p, _ in files]}")
        if size is not None:
            wasted += size * (len(set(keys)) - 1)
    if summ.get("wastedBytes") is not None and summ.get("wastedBytes") != wasted:
        problems.append(f"summary.wastedBytes={summ.get('wastedBytes')} but groups imply {wasted}")
    errs = summ.get("errors") or []
    if errs:
        notes.append(f"summary.errors has {len(errs)} entries, e.g. {errs[:3]}")
    notes.append(f"summary: files={summ.get('files')} bytesRead={summ.get('bytesRead')} "
                 f"groups={summ.get('groups')} wastedBytes={summ.get('wastedBytes')}")
    return problems, notes


def cmd_check(args):
    tree = os.path.abspath(args.tree) if args.tree else None
    inodes = Inodes()
    canons = []
    metas = {}
    manifest_links = {}
    if args.manifest:
        groups, meta = parse_manifest(args.manifest, tree)
        # every name of a multi-name inode, so all names are known up front
        for names in meta["manifest"].get("hardlinks", []):
            ks = {inodes.key(os.path.join(tree, n)) for n in names}
            for k in ks:
                manifest_links[k] = {os.path.join(tree, n) for n in names}
        canons.append(Canon("manifest", groups, inodes))
        metas["manifest"] = meta
    for tool in TOOLS:
        path = getattr(args, tool)
        if not path:
            continue
        try:
            groups, meta = PARSERS[tool](path, tree)
        except (OSError, ValueError) as e:
            print(f"- **{tool}**: cannot parse {path}: {e}")
            canons.append(None)
            continue
        canons.append(Canon(tool, groups, inodes))
        metas[tool] = meta
    canons = [c for c in canons if c is not None]
    if not canons:
        sys.exit("nothing to compare")
    ref = canons[0]
    ok = True
    print(f"Reference: **{ref.name}** -- {len(ref.sets)} duplicate groups, {ref.files()} distinct files "
          f"(hard links folded).\n")
    for c in canons:
        line = f"- **{c.name}**: {len(c.sets)} groups, {c.files()} files"
        extras = []
        if c.extra_names:
            extras.append(f"{c.extra_names} extra hard-link names folded")
        if c.degenerate:
            extras.append(f"{c.degenerate} hard-link-only sets ignored")
        if c.multi:
            extras.append(f"{c.multi} files appear in several groups")
            ok = False
        if extras:
            line += " (" + "; ".join(extras) + ")"
        if c is not ref:
            if c.sets == ref.sets:
                line += f" -- agrees with {ref.name}"
            else:
                ok = False
                miss, extra = ref.sets - c.sets, c.sets - ref.sets
                line += f" -- **DISAGREES** with {ref.name}: {len(miss)} groups missing/different, {len(extra)} extra/different"
                print(line)
                if miss:
                    print(f"  - in {ref.name}, not in {c.name}:")
                    print("\n".join(describe_diff(ref, c, inodes, args.show, tree)))
                if extra:
                    print(f"  - in {c.name}, not in {ref.name}:")
                    print("\n".join(describe_diff(c, ref, inodes, args.show, tree)))
                line = None
        if line:
            print(line)
        if c.name == "dedup":
            problems, notes = dedup_contract_checks(metas["dedup"], inodes, manifest_links)
            for n in notes:
                print(f"  - {n}")
            if problems:
                ok = False
                print(f"  - **{len(problems)} contract problems**, e.g.:")
                for p in problems[:args.show]:
                    print(f"    - {p}")
        if c.name == "rmlint":
            ft = metas["rmlint"].get("footer", {})
            other = metas["rmlint"].get("other_lint")
            print(f"  - rmlint footer: total_files={ft.get('total_files')} duplicate_sets={ft.get('duplicate_sets')}"
                  + (f"; other lint ignored: {other}" if other else ""))
    # pairwise summary among tools (not the manifest)
    tools = [c for c in canons if c.name != "manifest"]
    if len(tools) > 1:
        bad = [f"{a.name}/{b.name}" for i, a in enumerate(tools) for b in tools[i + 1:] if a.sets != b.sets]
        print(f"\nTools agree with each other: {'yes' if not bad else 'NO (' + ', '.join(bad) + ')'}")
    if inodes.errors:
        ok = False
        print(f"\n{len(inodes.errors)} reported paths could not be stat'ed, e.g. {inodes.errors[:args.show]}")
    print(f"\nResult: {'all consistent' if ok else 'DISAGREEMENT'}")
    return 0 if ok else 1


def cmd_canon(args):
    inodes = Inodes()
    for tool in TOOLS:
        path = getattr(args, tool)
        if path:
            groups, _ = PARSERS[tool](path, args.tree)
            c = Canon(tool, groups, inodes)
            for s in sorted((fmt_set(s, inodes) for s in c.sets)):
                print(json.dumps(s, ensure_ascii=False))
    if args.manifest:
        groups, _ = parse_manifest(args.manifest, os.path.abspath(args.tree))
        c = Canon("manifest", groups, inodes)
        for s in sorted((fmt_set(s, inodes) for s in c.sets)):
            print(json.dumps(s, ensure_ascii=False))
    return 0


# -- table ------------------------------------------------------------------

def human_bytes(n):
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            return f"{n / f:.2f} {unit}"
    return f"{n} B"


def cmd_table(args):
    rows = []
    with open(args.results, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if line.strip():
                rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    by = OrderedDict()
    for r in rows:
        by.setdefault((r["tool"], r["mode"]), []).append(r)
    med = {}
    for (tool, mode), rs in by.items():
        ok = [r for r in rs if r["exit"] == "0"]
        med[(tool, mode)] = statistics.median(float(r["wall_s"]) for r in ok) if ok else None
    warnings = []
    print("| tool | mode | runs | wall s (median) | wall min–max | peak RSS MiB | vs " + args.baseline
          + " | disk read MiB | dedup bytesRead |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for (tool, mode), rs in by.items():
        ok = [r for r in rs if r["exit"] == "0"]
        failed = len(rs) - len(ok)
        if not ok:
            print(f"| {tool} | {mode} | {len(rs)} | failed (exit {rs[0]['exit']}) | | | | | |")
            continue
        walls = [float(r["wall_s"]) for r in ok]
        rss = statistics.median(int(r["maxrss_kib"]) for r in ok) / 1024
        base = med.get((args.baseline, mode))
        ratio = f"{med[(tool, mode)] / base:.2f}×" if base else "—"
        disk_b = statistics.median(int(r["fs_in_blocks"]) for r in ok) * 512
        disk = f"{disk_b / (1 << 20):.0f}"
        if mode == "warm" and disk_b > max(0.02 * args.tree_bytes, 16 << 20):
            warnings.append(f"{tool} warm runs read {disk} MiB from disk (median): not fully cached")
        br = "—"
        if tool == "dedup":
            vals = []
            for r in ok:
                try:
                    with open(r["output"], encoding="utf-8") as f:
                        v = json.load(f).get("summary", {}).get("bytesRead")
                    if v is not None:
                        vals.append(int(v))
                except (OSError, ValueError):
                    pass
            if vals:
                v = int(statistics.median(vals))
                br = human_bytes(v)
                if args.tree_bytes:
                    br += f" ({100 * v / args.tree_bytes:.0f}% of tree)"
        runs = f"{len(ok)}" + (f" (+{failed} failed)" if failed else "")
        print(f"| {tool} | {mode} | {runs} | {statistics.median(walls):.2f} | {min(walls):.2f}–{max(walls):.2f} "
              f"| {rss:.0f} | {ratio} | {disk} | {br} |")
    for w in warnings:
        print(f"\nWarning: {w}.")
    return 0


def main():
    ap = argparse.ArgumentParser(description="compare duplicate-finder outputs; render benchmark table")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("check", "canon"):
        p = sub.add_parser(name)
        p.add_argument("--tree", required=(name == "check"), help="tree root (for relative manifest paths)")
        p.add_argument("--manifest")
        for t in TOOLS:
            p.add_argument(f"--{t}", metavar="FILE")
        p.add_argument("--show", type=int, default=10, help="max examples per difference")
    p = sub.add_parser("table")
    p.add_argument("--results", required=True, help="TSV: tool mode run wall_s maxrss_kib fs_in_blocks exit output")
    p.add_argument("--baseline", default="jdupes")
    p.add_argument("--tree-bytes", type=int, default=0)
    args = ap.parse_args()
    return {"check": cmd_check, "canon": cmd_canon, "table": cmd_table}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
