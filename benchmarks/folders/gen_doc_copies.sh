#!/usr/bin/env bash
# The issue's own #20 scenario: /usr/share/doc and three Python packages, copied twice, as a sysadmin's backups are.
# Usage: gen_doc_copies.sh OUT_DIR   (OUT_DIR/original, OUT_DIR/backup1, OUT_DIR/backup2; cp -a keeps links and modes)
# Machine-dependent (whatever this system's /usr/share/doc holds): symbolic links, empty files, many equal copyright
# files, sub-folders of one file — the cases where rmlint -D and dedup define "equal" differently.
set -euo pipefail
OUT="$1"
PY=/usr/lib/python3/dist-packages
rm -rf "$OUT.partial"
mkdir -p "$OUT.partial/original/python"
cp -a /usr/share/doc "$OUT.partial/original/doc"
for pkg in pip pygments setuptools; do
  cp -a "$PY/$pkg" "$OUT.partial/original/python/$pkg"
done
find "$OUT.partial/original" -name __pycache__ -prune -exec rm -rf {} +  # compiled caches differ run to run
cp -a "$OUT.partial/original" "$OUT.partial/backup1"
cp -a "$OUT.partial/original" "$OUT.partial/backup2"
rm -rf "$OUT"
mv "$OUT.partial" "$OUT"
echo "$OUT: $(find "$OUT" -type f | wc -l) files, $(find "$OUT" -type d | wc -l) folders, $(find "$OUT" -type l | wc -l) links"
