#!/usr/bin/env bash
# The Debian package (#37), as a user installs it: packaging/deb/build.sh, then apt install ./dedup_*.deb, the man
# page, the version, a scan with --cache, the completions where the shells look, and apt remove. As root (it installs);
# any failure exits non-zero with the step that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo ".ci/deb.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (apt-get install)"

start=$SECONDS
rm -rf artifacts/deb
deb=$(bash packaging/deb/build.sh artifacts/deb | tail -1)
echo ".ci/deb.sh: built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) in $((SECONDS - start)) s"
dpkg-deb --contents "$deb"

# Installed from the file like any package (apt resolves Depends); removed again whatever happens below.
(cd "$(dirname "$deb")" && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$(basename "$deb")" >/dev/null) \
  || fail "apt-get install ./$(basename "$deb") failed"
trap 'DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq dedup >/dev/null' EXIT

[ "$(command -v dedup)" = /usr/bin/dedup ] || fail "dedup is not /usr/bin/dedup on PATH"
man -w dedup | grep -qx /usr/share/man/man1/dedup.1.gz || fail "man -w dedup does not find /usr/share/man/man1/dedup.1.gz"
version=$(tr -d '[:space:]' < version.txt)
dedup --version | grep -q "^dedup $version" || fail "dedup --version is not $version: $(dedup --version)"
for completion in /usr/share/bash-completion/completions/dedup /usr/share/zsh/vendor-completions/_dedup /usr/share/fish/vendor_completions.d/dedup.fish; do
  [ -s "$completion" ] || fail "no completion script $completion"
done

tree=$(mktemp -d)
printf 'same' > "$tree/a"; printf 'same' > "$tree/b"; printf 'other' > "$tree/c"
sleep 2 # a file changed within a second of the scan is not cached (racy clean, docs/cache.md)
# The cache needs libe_sqlite3.so from /usr/lib/dedup: no warning, a cache file, and a second scan served from it.
errors=$(dedup find "$tree" --cache "$tree.db" --format json 2>&1 >"$tree.json") || fail "dedup find failed: $errors"
[ -z "$errors" ] || fail "dedup find --cache warned: $errors"
[ -f "$tree.db" ] || fail "no cache file $tree.db"
grep -q "\"$tree/b\"" "$tree.json" || fail "the scan did not report $tree/b: $(cat "$tree.json")"
dedup find "$tree" --cache "$tree.db" --stats | grep -q "cache: 2 hits" || fail "the rescan did not use the cache"
rm -rf "$tree" "$tree".db* "$tree.json"

trap - EXIT
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq dedup >/dev/null || fail "apt-get remove dedup failed"
[ ! -e /usr/bin/dedup ] && [ ! -e /usr/lib/dedup ] || fail "apt-get remove left /usr/bin/dedup or /usr/lib/dedup"
echo ".ci/deb.sh: installed, used and removed $(basename "$deb") in $((SECONDS - start)) s"
