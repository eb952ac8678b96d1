#!/usr/bin/env bash
# The win-x64 CLI, end to end under Wine (issue #15): publishes src/Dedup.Cli for win-x64 (self-contained, not
# NativeAOT), scans a generated tree with `dedup.exe find --format json` and checks the exact groups (a hard-link pair
# folded into one file, a file differing in the middle left out), then `dedup.exe link --mode hard --yes` and checks on
# the Linux side that every duplicate now has the kept file's inode (Wine's file ID). Fails loudly; never skips.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "wine-cli: $*" >&2; exit 1; }

# Debian 12's wine64 package installs the loader as /usr/lib/wine/wine64 and the `wine` wrapper in /usr/bin.
wine=$(command -v wine64 || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || command -v wine || true)
[ -n "$wine" ] || fail "wine is not installed (.ci/run installs Debian's wine64)"
command -v jq >/dev/null || fail "jq is not installed (.ci/run installs it)"

work=$(mktemp -d)
export WINEDEBUG=-all WINEPREFIX="$work/prefix" WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono/Gecko install prompts
export DOTNET_EnableWriteXorExecute=0  # W^X crashes the runtime under Wine on some kernels (see .ci/wine-tests.sh)
# The prefix's wineserver outlives the last wine command and may still write into the prefix: stop it (and wait) before
# removing the folder. The clean-up never changes the script's verdict: under `set -e` a failed `rm` in the trap made a
# passing run exit 1 (CI, session 10: "rm: cannot remove …/prefix: Directory not empty" after "wine-cli: passed").
cleanup() {
  local status=$?
  { wineserver -k; wineserver -w; } >/dev/null 2>&1 || true
  rm -rf "$work" 2>/dev/null || true
  exit "$status"
}
trap cleanup EXIT

dotnet publish src/Dedup.Cli -c Release -r win-x64 -p:NativeAot=false -o "$work/publish" -v:q -nologo >"$work/publish.log" 2>&1 \
  || { cat "$work/publish.log" >&2; fail "dotnet publish -r win-x64 failed"; }
exe="$work/publish/dedup.exe"
[ -f "$exe" ] || fail "no dedup.exe in the publish folder"

tree="$work/tree"
mkdir -p "$tree/a" "$tree/b/deep" "$tree/c"
head -c 300000 /dev/urandom > "$tree/a/big.bin"
cp "$tree/a/big.bin" "$tree/b/big-copy.bin"
cp "$tree/a/big.bin" "$tree/c/big-copy2.bin"
cp "$tree/a/big.bin" "$tree/c/big-differs.bin"
# Differs in the middle only: the byte there plus one (a fixed 'X' left the copy identical when the random byte was
# already 'X', 1 run in 256: most likely why CI once reported big-differs.bin as a duplicate under Mono).
byte=$(od -An -tu1 -j150000 -N1 "$tree/a/big.bin" | tr -d ' ')
printf "\\$(printf '%03o' $(( (byte + 1) % 256 )))" | dd of="$tree/c/big-differs.bin" bs=1 seek=150000 conv=notrunc status=none
cmp -s "$tree/a/big.bin" "$tree/c/big-differs.bin" && { echo "$0: big-differs.bin is not different" >&2; exit 1; }
ln "$tree/a/big.bin" "$tree/a/big-hardlink.bin"                 # a second name of a/big.bin: folded, never its duplicate
printf 'hello world\n' > "$tree/a/one.txt"
printf 'hello world\n' > "$tree/b/deep/one-copy.txt"
printf 'hello there\n' > "$tree/b/other.txt"                     # same size, other bytes
ln "$tree/b/other.txt" "$tree/c/other-hardlink.txt"               # a hard-link pair alone: no group

winpath() { local p=${1//\//\\}; printf 'Z:%s' "$p"; }
root=$(winpath "$tree")

# One line per group, sorted: each file as its names joined by +, files sorted, as Wine prints the paths.
export LC_ALL=C
groups() { jq -r '.groups[] | [.files[] | ([.path] + (.links // []) | sort | join("+"))] | sort | join(" ")' | sort; }
expected=$(printf '%s\n' \
  "$root\\a\\big-hardlink.bin+$root\\a\\big.bin $root\\b\\big-copy.bin $root\\c\\big-copy2.bin" \
  "$root\\a\\one.txt $root\\b\\deep\\one-copy.txt" | sort)

set +e
timeout 900 "$wine" "$exe" find "$root" --format json >"$work/find.json" 2>"$work/find.err"
status=$?
set -e
[ "$status" = 0 ] || { cat "$work/find.err" >&2; fail "dedup.exe find exited with $status"; }
actual=$(groups <"$work/find.json") || { cat "$work/find.json" >&2; fail "find's output is not the expected JSON"; }
if [ "$actual" != "$expected" ]; then
  diff <(echo "$expected") <(echo "$actual") >&2 || true
  fail "wrong groups from dedup.exe find under Wine"
fi
# The identities are Wine's file IDs, which are the Linux inodes: the JSON's "inode" must say so.
[ "$(jq -r --arg p "$root\\a\\big.bin" '.groups[].files[] | select(.path == $p or ((.links // []) | index([$p]))) | .inode' "$work/find.json")" = "$(stat -c %i "$tree/a/big.bin")" ] \
  || fail "the file ID reported for a\\big.bin is not its inode"

set +e
timeout 600 "$wine" "$exe" link --mode hard --yes "$root" >"$work/link.out" 2>&1
status=$?
set -e
[ "$status" = 0 ] || { cat "$work/link.out" >&2; fail "dedup.exe link --mode hard exited with $status"; }

inode() { stat -c %i "$tree/$1"; }
kept=$(inode a/big.bin)
for f in a/big-hardlink.bin b/big-copy.bin c/big-copy2.bin; do
  [ "$(inode "$f")" = "$kept" ] || fail "$f is not a hard link of a/big.bin after dedup.exe link"
done
[ "$(inode b/deep/one-copy.txt)" = "$(inode a/one.txt)" ] || fail "b/deep/one-copy.txt is not a hard link of a/one.txt"
[ "$(inode c/big-differs.bin)" != "$kept" ] || fail "c/big-differs.bin was linked although it differs"
[ "$(inode c/other-hardlink.txt)" = "$(inode b/other.txt)" ] && [ "$(inode b/other.txt)" != "$(inode a/one.txt)" ] \
  || fail "b/other.txt was changed"
cmp -s "$tree/a/big.bin" "$tree/c/big-copy2.bin" || fail "content changed"
[ -z "$(find "$tree" -name '.dedup-tmp-*')" ] || fail "temporary names left behind"
echo "wine-cli: passed (groups exact, hard links folded, duplicates hard-linked: same inode as the kept file)"
