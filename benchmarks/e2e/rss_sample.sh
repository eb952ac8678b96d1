#!/usr/bin/env bash
# benchmarks/e2e/rss_sample.sh OUT CMD...: runs CMD, samples its VmRSS every 50 ms into OUT ("ms KiB" lines), prints
# the exit status and the largest sample. A short spike between samples is missed: GNU time's %M is the high-water mark.
out=$1; shift
"$@" > /dev/null 2>"$out.err" & pid=$!
start=$(date +%s%N)
: > "$out"
while kill -0 $pid 2>/dev/null; do
  r=$(awk '/VmRSS/{print $2}' /proc/$pid/status 2>/dev/null)
  [ -n "$r" ] && echo "$(( ($(date +%s%N)-start)/1000000 )) $r" >> "$out"
  sleep 0.05
done
wait $pid; echo "exit $?"
sort -k2 -n "$out" | tail -1
