#!/usr/bin/env bash
# #37 pt8: acting throughput, `dedup link --yes` (hard links) against `jdupes -r -H -L`, on fresh copies of one tree.
# Usage: benchmarks/e2e/act_bench.sh DEDUP_BIN [runs=3] [TREE=/var/tmp/dedup-bench/snapshots-17280]
# The tree comes from gen_snapshots.py (generated when missing). Each timed run gets its own `cp -a` copy (same file
# system as TREE), made and pre-read untimed; tools interleave per round. Prints one TSV line per run and the medians.
# Both tools scan and then act: jdupes' time includes its own scan, so does dedup's. A run checks the result: the copy
# must hold exactly the tree's distinct contents as inodes afterwards. DEDUP2=PATH adds a second build ("dedup2", e.g.
# the one before a change) to every round. Wall times on a shared machine vary; user and system CPU times vary less.
set -u
bin=$1; runs=${2:-3}; tree=${3:-/var/tmp/dedup-bench/snapshots-17280}
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$tree" ] || python3 "$here/gen_snapshots.py" "$tree" >&2
work=$(dirname "$tree")/act-work.$$
distinct=$(find "$tree" -type f -printf '%s\n' | wc -l)
distinct=$((distinct / $(find "$tree" -mindepth 1 -maxdepth 1 -type d | wc -l)))
trap 'rm -rf "$work"' EXIT
printf 'run\ttool\twall_s\tuser_s\tsys_s\tinodes_after\n'
declare -A all cpu
for r in $(seq 1 "$runs"); do
  for tool in dedup ${DEDUP2:+dedup2} jdupes; do
    rm -rf "$work"; cp -a "$tree" "$work"; sync; find "$work" -type f -print0 | xargs -0 cat > /dev/null
    case $tool in
      dedup)  /usr/bin/time -o "$work.time" -f '%e %U %S' "$bin" link --mode hard "$work" --yes > "$work.out" 2>&1 ;;
      dedup2) /usr/bin/time -o "$work.time" -f '%e %U %S' "$DEDUP2" link --mode hard "$work" --yes > "$work.out" 2>&1 ;;
      jdupes) /usr/bin/time -o "$work.time" -f '%e %U %S' jdupes -r -q -H -L "$work" > "$work.out" 2>&1 ;;
    esac
    read -r e u s < <(tail -1 "$work.time")
    inodes=$(find "$work" -type f -printf '%i\n' | sort -u | wc -l)
    [ "$inodes" -eq "$distinct" ] || echo "WARNING: $tool run $r left $inodes inodes, expected $distinct" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$tool" "$e" "$u" "$s" "$inodes"
    all[$tool]="${all[$tool]:-} $e"; cpu[$tool]="${cpu[$tool]:-} $(echo "$u + $s" | bc)"
  done
done
rm -f "$work.time" "$work.out"
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for tool in dedup ${DEDUP2:+dedup2} jdupes; do
  printf 'median %s: wall %s s, cpu (user+sys) %s s\n' "$tool" "$(med ${all[$tool]})" "$(med ${cpu[$tool]})"
done
