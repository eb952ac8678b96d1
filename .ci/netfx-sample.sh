#!/usr/bin/env bash
# Runs samples/NetFxApp (.NET Framework 4.7.2, Dedup.Core's netstandard2.0 build) under Mono on a real tree: the exact
# groups must be printed, and with --link every duplicate must become a hard link of the kept file. Fails loudly.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v mono >/dev/null || { echo "netfx-sample: mono is not installed (.ci/run installs mono-runtime and mono-devel)" >&2; exit 1; }
# Usage: .ci/netfx-sample.sh [EXE]; by default the build of the solution (project reference). .ci/run also passes a
# build that took Dedup.Core from the packed .nupkg (see samples/NetFxApp/NetFxApp.csproj).
exe=${1:-samples/NetFxApp/bin/Debug/net472/NetFxApp.exe}
[ -f "$exe" ] || { echo "netfx-sample: $exe is not built" >&2; exit 1; }

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/a" "$tree/b/deep" "$tree/c"
printf 'hello world\n' > "$tree/a/one.txt"
printf 'hello world\n' > "$tree/b/deep/one-copy.txt"
printf 'hello there\n' > "$tree/b/other.txt"                     # same size, other bytes
head -c 300000 /dev/urandom > "$tree/c/big.bin"
cp "$tree/c/big.bin" "$tree/a/big-copy.bin"
cp "$tree/c/big.bin" "$tree/b/big-copy2.bin"
cp "$tree/c/big.bin" "$tree/c/big-differs.bin"
# Differs in the middle only: the byte there plus one (a fixed 'X' left the copy identical when the random byte was
# already 'X', 1 run in 256: most likely why CI once reported big-differs.bin as a duplicate under Mono).
byte=$(od -An -tu1 -j200000 -N1 "$tree/c/big.bin" | tr -d ' ')
printf "\\$(printf '%03o' $(( (byte + 1) % 256 )))" | dd of="$tree/c/big-differs.bin" bs=1 seek=200000 conv=notrunc status=none
cmp -s "$tree/c/big.bin" "$tree/c/big-differs.bin" && { echo "$0: big-differs.bin is not different" >&2; exit 1; }
ln "$tree/a/one.txt" "$tree/a/one-hardlink.txt"                   # a second name of one file, not a duplicate
: > "$tree/empty1"; : > "$tree/empty2"                             # empty files are not reported by default

expected=$(printf '%s\t%s\t%s\n%s\t%s\t%s\n' \
  "$tree/a/big-copy.bin" "$tree/b/big-copy2.bin" "$tree/c/big.bin" \
  "$tree/a/one-hardlink.txt" "$tree/a/one.txt" "$tree/b/deep/one-copy.txt")
actual=$(mono "$exe" "$tree")
if [ "$actual" != "$expected" ]; then
  echo "netfx-sample: wrong groups under Mono" >&2
  diff <(echo "$expected") <(echo "$actual") >&2 || true
  exit 1
fi

mono "$exe" "$tree" --link > "$tree.link.log" || { cat "$tree.link.log" >&2; echo "netfx-sample: --link failed" >&2; exit 1; }
inode() { stat -c %i "$1"; }
for f in b/big-copy2.bin c/big.bin; do
  [ "$(inode "$tree/$f")" = "$(inode "$tree/a/big-copy.bin")" ] || { echo "netfx-sample: $f is not a hard link of a/big-copy.bin" >&2; exit 1; }
done
[ "$(inode "$tree/b/deep/one-copy.txt")" = "$(inode "$tree/a/one.txt")" ] || { echo "netfx-sample: b/deep/one-copy.txt is not a hard link of a/one.txt" >&2; exit 1; }
[ "$(inode "$tree/c/big-differs.bin")" != "$(inode "$tree/a/big-copy.bin")" ] || { echo "netfx-sample: a different file was linked" >&2; exit 1; }
cmp -s "$tree/c/big.bin" "$tree/a/big-copy.bin"
[ -z "$(mono "$exe" "$tree")" ] || { echo "netfx-sample: duplicates remain after --link" >&2; exit 1; }
rm -f "$tree.link.log"
echo "netfx-sample: NetFxApp under Mono found the exact groups and hard-linked the duplicates"
