#!/usr/bin/env bash
# End-to-end benchmark: dedup CLI vs jdupes / rdfind / rmlint on a generated tree.
#
#   benchmarks/e2e/run.sh [--files N] [--gib G] [--seed S] [--tree DIR] [--cold]
#                         [--runs K] [--warmup W] [--no-build] [--dedup-bin PATH]
#                         [--tools LIST] [--out DIR] [--args TOOL=ARGS]...
#                         [--cmd NAME=COMMAND]... [--prepare NAME=COMMAND]...
#
# The report (Markdown, ready for docs/benchmarks.md) goes to stdout and to
# OUT/report.md; progress goes to stderr.  Exit status 1 if the tools disagree
# with each other or with the manifest.  See README.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
quote() {  # shell-quote only when needed (readable command line for the docs)
  if [[ $1 =~ ^[A-Za-z0-9_./,=:@%+-]+$ ]]; then printf '%s' "$1"; else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}
CMDLINE="benchmarks/e2e/run.sh"
for a in "$@"; do CMDLINE+=" $(quote "$a")"; done

FILES=60000
GIB=4
SEED=42
TREE=""
COLD=0
RUNS=3
WARMUP=1
BUILD=1
DEDUP_BIN=""
TOOLS="dedup,jdupes,rdfind,rmlint"
OUT=""
declare -A EXTRA_CMD EXTRA_PREP TOOL_ARGS
BENCH_ROOT=/var/tmp/dedup-bench

usage() { sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; cat <<EOF
Options (defaults in brackets):
  --files N        entries in the generated tree [$FILES]
  --gib G          GiB of distinct data in the generated tree [$GIB]
  --seed S         generator seed [$SEED]
  --tree DIR       tree to scan; generated there if absent
                   [$BENCH_ROOT/tree-<files>-<gib>]; an existing tree without
                   a manifest is compared tool-vs-tool only
  --cold           also run cold-cache (sync; echo 3 > /proc/sys/vm/drop_caches; root only)
  --runs K         timed repetitions per tool and mode; the median is reported [$RUNS]
  --warmup W       untimed runs per tool before the warm runs [$WARMUP]
  --no-build       do not run 'dotnet publish' (use existing artifacts/cli/dedup)
  --dedup-bin PATH benchmark this dedup executable (implies --no-build)
  --tools LIST     comma-separated subset of dedup,jdupes,rdfind,rmlint,fdupes and
                   the names given to --cmd, in the order the runs interleave [$TOOLS]
  --out DIR        where raw outputs, results.tsv and report.md go
                   [$BENCH_ROOT/results/<timestamp>-<files>-<gib>]
  --args T=A       extra arguments (word-split) for tool T, one of the five above,
                   e.g. dedup=--hidden rmlint=--hidden: both skip dot-names by default
  --cmd N=C        an extra tool N: the bash command C, timed like the others; it sees
                   TREE, OUT (its output file), MODE, RUN and DEDUP (the dedup executable)
  --prepare N=C    an untimed bash command before every run of tool N (same variables)
                   (benchmarks/compare uses these for cache, catalog, folder, media and dedupe runs)
EOF
}

die() { echo "run.sh: error: $*" >&2; exit 2; }
log() { echo "[run.sh $(date +%H:%M:%S)] $*" >&2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --files) FILES=${2:?}; shift 2 ;;
    --gib) GIB=${2:?}; shift 2 ;;
    --seed) SEED=${2:?}; shift 2 ;;
    --tree) TREE=${2:?}; shift 2 ;;
    --cold) COLD=1; shift ;;
    --runs) RUNS=${2:?}; shift 2 ;;
    --warmup) WARMUP=${2:?}; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --dedup-bin) DEDUP_BIN=${2:?}; BUILD=0; shift 2 ;;
    --tools) TOOLS=${2:?}; shift 2 ;;
    --out) OUT=${2:?}; shift 2 ;;
    --args) [[ ${2:?} == *=* ]] || die "--args wants TOOL=ARGS"; TOOL_ARGS[${2%%=*}]=${2#*=}; shift 2 ;;
    --cmd) [[ ${2:?} == *=* ]] || die "--cmd wants NAME=COMMAND"; EXTRA_CMD[${2%%=*}]=${2#*=}; shift 2 ;;
    --prepare) [[ ${2:?} == *=* ]] || die "--prepare wants NAME=COMMAND"; EXTRA_PREP[${2%%=*}]=${2#*=}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "--warmup must be a non-negative integer"
[[ $FILES =~ ^[1-9][0-9]*$ ]] || die "--files must be a positive integer"
[[ $GIB =~ ^[0-9]*\.?[0-9]+$ ]] || die "--gib must be a number"
IFS=, read -r -a TOOL_LIST <<< "$TOOLS"
for t in "${TOOL_LIST[@]}"; do
  case "$t" in dedup|jdupes|rdfind|rmlint|fdupes) ;; *) [[ -n ${EXTRA_CMD[$t]:-} ]] || die "unknown tool: $t (not given by --cmd)" ;; esac
done
is_extra() { [[ -n ${EXTRA_CMD[$1]:-} ]]; }
has_tool() { [[ ",$TOOLS," == *",$1,"* ]]; }

# ---------------------------------------------------------------- tree
EXPLICIT_TREE=1
if [[ -z $TREE ]]; then
  EXPLICIT_TREE=0
  TREE="$BENCH_ROOT/tree-$FILES-$GIB"
  [[ $SEED == 42 ]] || TREE+="-s$SEED"
fi
mkdir -p "$(dirname "$TREE")"
TREE=$(cd "$(dirname "$TREE")" && pwd -P)/$(basename "$TREE"); TREE=${TREE#/}; TREE=/${TREE#/}  # a tree under / (/usr): one leading slash
MANIFEST="$(dirname "$TREE")/$(basename "$TREE").manifest.json"
case "$TREE/" in "$REPO"/*) log "warning: the tree is inside the repository ($TREE)";; esac

if [[ -z $OUT ]]; then
  OUT="$BENCH_ROOT/results/$(date +%Y%m%d-%H%M%S)-$(basename "$TREE")"
fi
mkdir -p "$OUT/raw"
OUT=$(cd "$OUT" && pwd -P)
REPORT="$OUT/report.md"
RESULTS="$OUT/results.tsv"
: > "$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

if [[ -d $TREE ]]; then
  if [[ -f $MANIFEST ]]; then
    log "using existing tree $TREE"
  elif [[ $EXPLICIT_TREE == 1 ]]; then
    log "warning: $TREE has no manifest ($MANIFEST); tools are compared with each other only"
    MANIFEST=""
  else
    die "$TREE exists but has no manifest (interrupted generation?); remove it and rerun"
  fi
else
  avail_kib=$(df -Pk "$(dirname "$TREE")" | awk 'NR==2 {print $4}')
  need_kib=$(awk -v g="$GIB" 'BEGIN {printf "%d", g * 1024 * 1024 * 1.15 + 1024 * 1024}')
  (( avail_kib > need_kib )) || die "not enough free space in $(dirname "$TREE"): $((avail_kib / 1024)) MiB free, ~$((need_kib / 1024)) MiB needed"
  log "generating $TREE ($FILES files, $GIB GiB, seed $SEED)"
  python3 "$HERE/gen_tree.py" "$TREE" --files "$FILES" --total-gib "$GIB" --seed "$SEED"
fi

# ---------------------------------------------------------------- tools
declare -A PKG=([jdupes]=jdupes [rdfind]=rdfind [rmlint]=rmlint [fdupes]=fdupes)
missing=()
/usr/bin/time --version 2>&1 | grep -q 'GNU' || missing+=(time)
for t in "${TOOL_LIST[@]}"; do
  [[ $t == dedup ]] && continue
  is_extra "$t" && continue
  command -v "$t" > /dev/null || missing+=("${PKG[$t]}")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  [[ $EUID -eq 0 ]] || die "missing: ${missing[*]} (install: sudo apt-get install -y ${missing[*]})"
  log "installing ${missing[*]}"
  apt-get -o DPkg::Lock::Timeout=600 install -y "${missing[@]}" >&2 \
    || { apt-get -o DPkg::Lock::Timeout=600 update >&2 && apt-get -o DPkg::Lock::Timeout=600 install -y "${missing[@]}" >&2; }
fi

if has_tool dedup || [[ ${#EXTRA_CMD[@]} -gt 0 ]]; then
  if [[ -z $DEDUP_BIN ]]; then
    DEDUP_BIN="$REPO/artifacts/cli/dedup"
    if [[ $BUILD == 1 ]]; then
      log "dotnet publish src/Dedup.Cli -c Release -r linux-x64 -o artifacts/cli"
      if ! (cd "$REPO" && rm -rf artifacts/cli && dotnet publish src/Dedup.Cli -c Release -r linux-x64 -o artifacts/cli) > "$OUT/publish.log" 2>&1; then
        tail -n 30 "$OUT/publish.log" >&2
        die "dotnet publish failed (full log: $OUT/publish.log)"
      fi
    fi
  fi
  [[ -x $DEDUP_BIN ]] || ! has_tool dedup || die "dedup executable not found: $DEDUP_BIN (build it or pass --dedup-bin / --tools without dedup)"
fi

# ---------------------------------------------------------------- cache control
drop_caches() {
  sync
  { echo 3 > /proc/sys/vm/drop_caches; } 2> /dev/null
}
cached_kib() { awk '/^Cached:/ {print $2}' /proc/meminfo; }
COLD_NOTE=""
if [[ $COLD == 1 ]]; then
  if [[ $EUID -ne 0 ]]; then
    COLD=0; COLD_NOTE="cold runs requested but not running as root: cannot drop the page cache; cold rows omitted"
  else
    before=$(cached_kib)
    if ! drop_caches; then
      COLD=0; COLD_NOTE="cold runs requested but writing /proc/sys/vm/drop_caches failed (read-only /proc in a container?); cold rows omitted"
    else
      after=$(cached_kib)
      log "drop_caches test: page cache ${before} KiB -> ${after} KiB"
      if (( before > 1048576 && after * 2 > before )); then
        COLD_NOTE="warning: drop_caches succeeded but the page cache only went from $((before / 1024)) to $((after / 1024)) MiB; cold numbers may be partly warm"
      fi
    fi
  fi
  [[ -n $COLD_NOTE ]] && log "$COLD_NOTE"
fi

# ---------------------------------------------------------------- running
printf 'tool\tmode\trun\twall_s\tmaxrss_kib\tfs_in_blocks\texit\toutput\tuser_s\tsys_s\n' > "$RESULTS"

tool_cmd() {  # tool out -> sets CMD (array) and STDOUT_TO
  local tool=$1 out=$2
  STDOUT_TO="$out.stdout"
  case "$tool" in
    dedup)  CMD=("$DEDUP_BIN" find "$TREE" ${TOOL_ARGS[dedup]:-} --format json --stats --output "$out") ;;
    jdupes) CMD=(jdupes -r -q ${TOOL_ARGS[jdupes]:-} "$TREE"); STDOUT_TO=$out ;;
    fdupes) CMD=(fdupes -r -q -n ${TOOL_ARGS[fdupes]:-} "$TREE"); STDOUT_TO=$out ;;
    rdfind) CMD=(rdfind -dryrun true ${TOOL_ARGS[rdfind]:-} -outputname "$out" "$TREE") ;;
    rmlint) CMD=(rmlint -T df ${TOOL_ARGS[rmlint]:-} "$TREE" -o "json:$out") ;;
    *)      CMD=(bash -c "${EXTRA_CMD[$tool]}") ;;  # exec'd by bash: time sees the tool's own RSS and CPU
  esac
}
out_ext() { case "$1" in dedup|rmlint) echo json ;; jdupes|rdfind|fdupes) echo txt ;; *) echo out ;; esac; }

run_one() {  # tool mode run record(0/1)
  local tool=$1 mode=$2 run=$3 record=$4
  local out="$OUT/raw/$tool-$mode-$run.$(out_ext "$tool")"
  local tf="$OUT/raw/$tool-$mode-$run.time"
  rm -f "$out"
  tool_cmd "$tool" "$out"
  if [[ $mode == cold ]]; then
    drop_caches || die "drop_caches failed"
  else
    warm_tree
  fi
  local vars=(TREE="$TREE" OUT="$out" MODE="$mode" RUN="$run" DEDUP="$DEDUP_BIN")
  if [[ -n ${EXTRA_PREP[$tool]:-} ]]; then
    env "${vars[@]}" bash -c "${EXTRA_PREP[$tool]}" >&2 || die "--prepare of $tool failed"
  fi
  local rc=0
  env "${vars[@]}" /usr/bin/time -f '%e %M %I %U %S' -o "$tf" "${CMD[@]}" > "$STDOUT_TO" 2> "$out.stderr" || rc=$?
  local wall rss inb usr sys
  read -r wall rss inb usr sys < <(tail -n 1 "$tf")
  if [[ $rc -ne 0 ]]; then
    log "$tool $mode #$run FAILED (exit $rc); stderr tail:"
    tail -n 5 "$out.stderr" >&2 || true
  fi
  log "$tool $mode #$run: ${wall}s, max RSS $((rss / 1024)) MiB, exit $rc"
  if [[ $record == 1 ]]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$mode" "$run" "$wall" "$rss" "$inb" "$rc" "$out" "$usr" "$sys" >> "$RESULTS"
  fi
  LAST_OUT[$tool]=$out
  LAST_RC[$tool]=$rc
}
declare -A LAST_OUT LAST_RC

# Read the whole tree through the page cache.  Done before *every* warm run:
# some VMs page out idle page cache proactively (e.g. a DAMON "pageout"
# scheme, ~30 s idle), so a single warm-up pass is not enough there.
warm_tree() { find "$TREE" -type f -print0 | xargs -0 -r -n 256 -P 2 cat > /dev/null; }
damon_note=""
for k in /sys/kernel/mm/damon/admin/kdamonds/*; do
  [[ -f $k/state && $(cat "$k/state" 2>/dev/null) == on ]] || continue
  if grep -qx pageout "$k"/contexts/*/schemes/*/action 2>/dev/null; then
    damon_note="DAMON proactive reclaim (pageout) is active on this machine; the tree is re-read with cat before every warm run"
  fi
done
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "sync (flush dirty pages, e.g. from tree generation)"
sync
log "warm-up: reading the whole tree once"
warm_tree
for ((w = 1; w <= WARMUP; w++)); do
  for t in "${TOOL_LIST[@]}"; do run_one "$t" warmup "$w" 0; done
done
for ((r = 1; r <= RUNS; r++)); do
  for t in "${TOOL_LIST[@]}"; do run_one "$t" warm "$r" 1; done
done
declare -A CHECK_OUT
for t in "${TOOL_LIST[@]}"; do
  [[ ${LAST_RC[$t]} == 0 ]] && CHECK_OUT[$t]=${LAST_OUT[$t]}
done
if [[ $COLD == 1 ]]; then
  for ((r = 1; r <= RUNS; r++)); do
    for t in "${TOOL_LIST[@]}"; do run_one "$t" cold "$r" 1; done
  done
fi

# ---------------------------------------------------------------- report
tree_info=""
tree_bytes=0
if [[ -n $MANIFEST ]]; then
  read -r tree_bytes tree_info < <(python3 - "$MANIFEST" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1], encoding="utf-8"))
s = m["stats"]
if "args" not in m:  # gen_sourcetree.py's manifest: its own statistics
    a = s.get("args", {})
    print(s["apparent_bytes"], f"{s['entries']} entries ({s['regular_files']} files, {s['empty_files']} empty, "
          f"{s['hardlink_names']} extra hard-link names) in {s['folders']} folders (max depth {s['max_depth']}), "
          f"{s['apparent_bytes'] / 1e9:.2f} GB; {s['duplicate_groups']} duplicate groups with {s['files_in_groups']} files "
          f"({s['reclaimable_bytes'] / 1e9:.2f} GB reclaimable), {s['distinct_sizes']} distinct sizes; "
          f"gen_sourcetree.py --files {a.get('files', '?')} --total-gb {a.get('total_gb', '?')} --seed {a.get('seed', '?')}")
    sys.exit(0)
a = m["args"]
print(s["bytes"], f"{s['names']} entries ({s['inodes']} distinct files, {s['empty_files']} empty, "
      f"{s['hardlink_names']} extra hard-link names) in {s['dirs']} folders (max depth {s['max_depth']}), "
      f"{s['bytes'] / 2**30:.2f} GiB; {s['groups']} duplicate groups with {s['duplicate_files']} files "
      f"({s['wasted_bytes'] / 2**30:.2f} GiB reclaimable), {s['near_twin_sets']} near-twin sets "
      f"({s.get('near_twin_sets_large', '?')} of them 1-64 MiB), "
      f"{s['prefix_family_files']} same-size files sharing a 4-64 KiB prefix, {s['distinct_sizes']} distinct sizes; "
      f"gen_tree.py --files {a['files']} --total-gib {a['total_gib']} --seed {a['seed']}")
EOF
)
else
  tree_bytes=$(du -sb "$TREE" | awk '{print $1}')
  tree_info="$(find "$TREE" -type f | wc -l) files, $(du -sh "$TREE" | awk '{print $1}') (no manifest)"
fi

ver() { "$@" 2>&1 | head -n 1 | tr -d '\r' || true; }
versions=()
for t in "${TOOL_LIST[@]}"; do
  case "$t" in
    dedup)
      if rev=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null); then
        git -C "$REPO" diff --quiet HEAD -- 2>/dev/null || rev+=" + local changes"
      else
        rev="none"
      fi
      dv=$(timeout 10 "$DEDUP_BIN" --version 2>/dev/null | head -n 1 || true)
      versions+=("dedup ${dv:-?} (commit $rev, .NET SDK $(dotnet --version 2>/dev/null || echo '?'))") ;;
    jdupes) versions+=("$(ver jdupes --version)") ;;
    rdfind) versions+=("$(ver rdfind --version | sed 's/^This is //; s/ version / /')") ;;
    rmlint) versions+=("rmlint $(rmlint --version 2>&1 | grep -o 'version [0-9.]*' | head -n 1 | cut -d' ' -f2)") ;;
    fdupes) versions+=("$(ver fdupes --version)") ;;
  esac
done
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
mem=$(awk '/^MemTotal:/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
fstype=$(df -PT "$TREE" | awk 'NR==2 {print $2}')

say "### End-to-end: dedup vs jdupes / rdfind / rmlint"
say ""
say "Command: \`$CMDLINE\` ($(date -u +%Y-%m-%dT%H:%MZ))"
say ""
say "- Machine: ${cpu:-unknown CPU}, $(nproc) cores, $mem RAM, Linux $(uname -r), tree on $fstype"
say "- Tree: \`$TREE\`: $tree_info"
say "- Versions: $(IFS=';'; echo "${versions[*]}" | sed 's/;/; /g')"
say "- Timed commands (under \`/usr/bin/time -f '%e %M %I %U %S'\`):"
for t in "${TOOL_LIST[@]}"; do
  tool_cmd "$t" OUTFILE
  c="${CMD[*]}"; c=${c//"$TREE"/TREE}; [[ $t == dedup ]] && c=${c/#"$DEDUP_BIN"/dedup}
  is_extra "$t" && c="$t: ${EXTRA_CMD[$t]}"
  [[ $STDOUT_TO == OUTFILE ]] && c+=" > OUTFILE"
  say "  - \`$c\`"
done
say "- Warm: after \`sync\` and $WARMUP untimed run(s) per tool; the tree is read with \`cat\` right before every run; runs interleaved across tools. Median of $RUNS run(s)."
if [[ $COLD == 1 ]]; then
  say "- Cold: \`sync; echo 3 > /proc/sys/vm/drop_caches\` before every run."
fi
[[ -n $COLD_NOTE ]] && say "- Note: $COLD_NOTE"
[[ -n $damon_note ]] && say "- Note: $damon_note"
say "- Load average (1/5/15 min) before the runs: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg)"
say ""
python3 "$HERE/compare.py" table --results "$RESULTS" --tree-bytes "$tree_bytes" | tee -a "$REPORT"
say ""
say "Peak RSS = max resident set size (GNU time %M). Disk read = block-device input during the run (GNU time %I x 512 B; should be ~0 when warm). dedup bytesRead = summary.bytesRead of its JSON."
say ""
say "#### Correctness (last warm run of each tool$([[ -n $MANIFEST ]] && echo ", against the generator's manifest"))"
say ""
check_args=(check --tree "$TREE")
[[ -n $MANIFEST ]] && check_args+=(--manifest "$MANIFEST")
for t in "${TOOL_LIST[@]}"; do
  is_extra "$t" && continue  # another kind of output (folders, an acting run): its scenario checks it
  if [[ -n ${CHECK_OUT[$t]:-} ]]; then
    check_args+=("--$t" "${CHECK_OUT[$t]}")
  else
    say "- **$t**: failed (exit ${LAST_RC[$t]}), not checked"
  fi
done
rc=0
python3 "$HERE/compare.py" "${check_args[@]}" | tee -a "$REPORT" || rc=${PIPESTATUS[0]}
log "report: $REPORT (raw outputs and results.tsv in $OUT)"
exit "$rc"
