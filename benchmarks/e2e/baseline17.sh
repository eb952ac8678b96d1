#!/usr/bin/env bash
# #17 baseline: the NativeAOT CLI, jdupes and the embedded library (benchmarks/embedded) on one tree, interleaved.
# Usage: benchmarks/e2e/baseline17.sh TREE OUTDIR [warm_runs=3] [cold_runs=2]
# Needs: /tmp/cli-k/dedup (dotnet publish src/Dedup.Cli -c Release -r linux-x64 -o /tmp/cli-k),
#        /tmp/emb-k/Dedup.Embedded (dotnet build benchmarks/embedded -c Release -o /tmp/emb-k), jdupes, GNU time.
# Cold runs need root (sync; echo 3 > /proc/sys/vm/drop_caches before each). COLD_TOOLS (default "dedup jdupes
# embedded") chooses the tools of the cold rounds: a cold jdupes run of the 1 M tree takes minutes. WARM_TOOLS likewise
# for the warm rounds; tool "dedup2" runs a second build, $CLI2, for A/B comparisons. The TSV has user and system CPU.
set -u
tree=$1; out=$2; warm=${3:-3}; cold=${4:-2}
CLI=${CLI:-/tmp/cli-k/dedup}; EMB=${EMB:-/tmp/emb-k/Dedup.Embedded}
mkdir -p "$out"
tsv=$out/results.tsv
[ -f "$tsv" ] || printf 'date\tmode\trun\ttool\twall_s\tmaxrss_kib\tdisk_in_blocks\texit\tload1\tuser_s\tsys_s\n' > "$tsv"
# This VM's DAMON reclaim (pageout scheme) evicts idle page cache within a minute or two, and other sessions'
# builds compete for memory: without this, "warm" runs read 180-270 MiB from disk. Untimed; disk_in_blocks
# (%I, 512 B) in the TSV shows what a run still read. Before every warm run, not once per round: the reclaim pages
# out what stayed idle for 60 s (12 aggregation intervals of 5 s), so the third tool of a round found the tree gone.
prewarm() { find "$tree" -type f -print0 | xargs -0 -n 2000 cat > /dev/null; }
run() { # mode run tool
  local mode=$1 r=$2 tool=$3 t=$out/time.$tool
  [ "$mode" = cold ] && { sync; echo 3 > /proc/sys/vm/drop_caches; }
  [ "$mode" = warm ] && prewarm
  local load; load=$(cut -d' ' -f1 /proc/loadavg); local d; d=$(date -u +%FT%TZ)
  case $tool in
    dedup)    /usr/bin/time -o "$t" -f '%e %M %I %x %U %S' "$CLI" find "$tree" --format json -o "$out/dedup.$mode.json" ;;
    dedup2)   /usr/bin/time -o "$t" -f '%e %M %I %x %U %S' "$CLI2" find "$tree" --format json -o "$out/dedup2.$mode.json" ;;
    jdupes)   /usr/bin/time -o "$t" -f '%e %M %I %x %U %S' jdupes -r -q "$tree" > "$out/jdupes.$mode.txt" ;;
    embedded) /usr/bin/time -o "$t" -f '%e %M %I %x %U %S' "$EMB" "$tree" > "$out/embedded.$mode.txt" ;;
  esac
  read -r e m i x u s < <(tail -1 "$t")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$mode" "$r" "$tool" "$e" "$m" "$i" "$x" "$load" "$u" "$s" | tee -a "$tsv" >&2
  # A "warm" run that read from disk (more than 64 MiB) measured the disk, not the program: say so where it is seen.
  [ "$mode" != cold ] && [ "${i:-0}" -gt 131072 ] && echo "WARNING: warm run $r of $tool read $((i / 2048)) MiB from disk: not warm (is DAMON reclaim on? see docs/benchmarks.md)" >&2
}
prewarm; for tool in ${WARM_TOOLS:-dedup jdupes embedded}; do run warmup 0 $tool; done
for r in $(seq 1 "$warm"); do for tool in ${WARM_TOOLS:-dedup jdupes embedded}; do run warm "$r" $tool; done; done
for r in $(seq 1 "$cold"); do for tool in ${COLD_TOOLS:-dedup jdupes embedded}; do run cold "$r" $tool; done; done
