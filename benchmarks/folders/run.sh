#!/usr/bin/env bash
# #20 folder mode: `dedup find` vs `dedup find --folders` (cost of the folder pass) and `rmlint -D` (time and agreement).
# Usage: benchmarks/folders/run.sh [DEDUP] [RUNS]   (DEDUP: a published CLI, default /tmp/dedup-folders/dedup)
# Trees: /var/tmp/dedup-bench/tree-60000-4 (benchmarks/e2e/gen_tree.py), /var/tmp/dedup-bench/copied-folders-1000
# (gen_copied_folders.py here) and /var/tmp/dedup-bench/doc-copies (gen_doc_copies.sh: the issue's /usr/share/doc
# scenario); each made if missing. Exit status: compare.py's (1 when dedup disagrees with the oracle or the manifest). Warm: each tree is read with cat before every run; runs interleaved.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
DEDUP="${1:-/tmp/dedup-folders/dedup}"
RUNS="${2:-5}"
OUT="${OUT:-/tmp/dedup-folders-bench}"
BENCH=/var/tmp/dedup-bench
mkdir -p "$OUT"
rm -f "$OUT/times.txt" "$OUT"/*.json "$OUT"/*.log  # this run's only: stale times or reports would pass for its own
[ -d "$BENCH/copied-folders-1000" ] || python3 "$HERE/gen_copied_folders.py" "$BENCH/copied-folders-1000"
[ -d "$BENCH/tree-60000-4" ] || python3 "$HERE/../e2e/gen_tree.py" "$BENCH/tree-60000-4" --files 60000 --total-gib 4.0 --seed 42
[ -d "$BENCH/doc-copies" ] || "$HERE/gen_doc_copies.sh" "$BENCH/doc-copies"
TREES=("$BENCH/tree-60000-4" "$BENCH/copied-folders-1000" "$BENCH/doc-copies")

echo "# $(date -u +%FT%TZ) $(uname -r); $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# dedup: $DEDUP; $(rmlint --version 2>&1 | head -1)"
for tree in "${TREES[@]}"; do
  name="$(basename "$tree")"
  for run in $(seq 1 "$RUNS"); do
    for tool in plain folders folders-ignore-names rmlint-D rmlint-Dj; do
      find "$tree" -type f -print0 | xargs -0 cat > /dev/null
      # rmlint with its default lint types, as users run it: with -T df,dd it leaves empty files out of the
      # directory comparison and then never pairs a folder holding one (measured: a/__init__.py+x vs b/...).
      case "$tool" in
        plain) cmd=("$DEDUP" find "$tree" --format json -o "$OUT/$name.plain.json") ;;
        folders) cmd=("$DEDUP" find "$tree" --folders --format json -o "$OUT/$name.folders.json") ;;
        folders-ignore-names) cmd=("$DEDUP" find "$tree" --folders-ignore-names --format json -o "$OUT/$name.ignore.json") ;;
        rmlint-D) cmd=(rmlint -D "$tree" -o "json:$OUT/$name.rmlint-D.json") ;;
        rmlint-Dj) cmd=(rmlint -D -j "$tree" -o "json:$OUT/$name.rmlint-Dj.json") ;;
      esac
      # %x: the run's exit status; summarize.py leaves failed runs out of the medians and names them.
      rc=0
      /usr/bin/time -f "$name $tool $run %e %U %S %M %x" -a -o "$OUT/times.txt" "${cmd[@]}" > "$OUT/$name.$tool.log" 2>&1 || rc=$?
      [ "$rc" -eq 0 ] || echo "# FAILED (exit $rc): $name $tool run $run; see $OUT/$name.$tool.log" >&2
    done
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$HERE/summarize.py" "$OUT"
status=0
for tree in "${TREES[@]}"; do
  name="$(basename "$tree")"
  manifest=(); [ -f "$tree.folders.json" ] && manifest=("$tree.folders.json")
  python3 "$HERE/compare.py" "$tree" "$OUT/$name.folders.json" "$OUT/$name.ignore.json" "$OUT/$name.rmlint-Dj.json" "$OUT/$name.rmlint-D.json" "${manifest[@]}" || status=1
done
exit "$status"
