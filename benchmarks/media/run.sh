#!/usr/bin/env bash
# Media mode vs whole-file mode on a folder of large media files (issue 5's benchmark).
# Usage: benchmarks/media/run.sh [--dir DIR] [--runs N] [--no-build] [--include GLOB] [--cold] [--generate-only]
# Builds a folder of real media made by ffmpeg (MP3, FLAC, WAV, MP4, JPEG, PNG; 5–60 MB each, ~1.3 GB), each
# file with one byte-identical copy in another folder, plus unique files of the same formats. Both modes
# then read the same duplicate bytes; media mode additionally opens every file to locate its payload.
# Prints hyperfine's table and the ratio media/whole-file. --include '*.png' times one format (both modes scan
# only the matching files; the folder is still re-read whole before each run). --cold drops the page cache
# before each run instead (needs root), so both modes read from the disk. --generate-only makes the folder and
# stops (benchmarks/compare media times the peers on it).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
args="$*"
dir=/var/tmp/dedup-bench/media
runs=5
build=1
include=
prepare=
generate_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --include) include="--include '$2'"; shift 2 ;;
    --generate-only) generate_only=1; shift ;;
    --cold) prepare="sync; echo 3 > /proc/sys/vm/drop_caches"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
for tool in ffmpeg $([ $generate_only = 1 ] || echo hyperfine); do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install -y $tool)" >&2; exit 2; }
done

if [ ! -f "$dir/.complete" ]; then
  rm -rf "$dir"; mkdir -p "$dir/a" "$dir/b" "$dir/unique"
  ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
  for i in 1 2 3 4; do
    ff -f lavfi -i "sine=frequency=$((300 + i * 110)):duration=300" -c:a pcm_s16le -ac 2 "$dir/a/tone$i.wav"
    ff -f lavfi -i "sine=frequency=$((300 + i * 110)):duration=600" -c:a libmp3lame -b:a 192k "$dir/a/tone$i.mp3"
    ff -f lavfi -i "anoisesrc=d=120:c=pink:seed=$i" -ac 2 -c:a flac "$dir/a/noise$i.flac"
    ff -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=40" -f lavfi -i "sine=d=40:f=$((500 + i))" -c:v libx264 -preset ultrafast -qp $((18 + i)) -c:a aac -shortest "$dir/a/clip$i.mp4"
    ff -f lavfi -i "nullsrc=s=$((5000 + i * 200))x4000,geq=random(1)*255:128:128" -frames:v 1 -q:v 2 "$dir/a/photo$i.jpg"
    ff -f lavfi -i "nullsrc=s=$((2800 + i * 100))x2000,geq=random(1)*255:random(1)*255:128" -frames:v 1 "$dir/a/image$i.png"
  done
  for f in "$dir"/a/*; do cp --reflink=never "$f" "$dir/b/"; done
  ff -f lavfi -i "sine=frequency=999:duration=300" -c:a pcm_s16le -ac 2 "$dir/unique/other.wav"
  ff -f lavfi -i "nullsrc=s=6000x4000,geq=random(1)*255:64:200" -frames:v 1 -q:v 2 "$dir/unique/other.jpg"
  touch "$dir/.complete"
fi
[ $generate_only = 1 ] && exit 0

bin="$repo/artifacts/cli/dedup"
if [ $build = 1 ]; then
  (cd "$repo" && rm -rf artifacts/cli && dotnet publish src/Dedup.Cli -c Release -r linux-x64 -o artifacts/cli >/dev/null)
fi

echo "Command: benchmarks/media/run.sh ${args}  ($(date -u +%FT%TZ))"
echo "Folder: $dir — $(find "$dir" -type f ! -name .complete | wc -l) files, $(du -sh --apparent-size "$dir" | cut -f1)"
hyperfine --warmup 1 --runs "$runs" --export-markdown /tmp/media-bench.md \
  --prepare "${prepare:-cat $dir/*/* > /dev/null}" \
  -n whole-file "$bin find $dir $include --format json --stats -o /tmp/media-whole.json" \
  -n media "$bin find $dir $include --media --format json --stats -o /tmp/media-payload.json" >/dev/null
cat /tmp/media-bench.md
python3 - <<'PY'
import json
for name in ("whole", "payload"):
    s = json.load(open(f"/tmp/media-{name}.json"))["summary"]
    print(f"{name}: groups={s['groups']} bytesRead={s['bytesRead']}")
PY
