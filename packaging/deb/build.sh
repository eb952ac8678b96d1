#!/usr/bin/env bash
# Builds dedup_VERSION_ARCH.deb from the NativeAOT build of the CLI (#37):
#   /usr/lib/dedup/dedup             the program, stripped (no .dbg, no .pdb)
#   /usr/lib/dedup/libe_sqlite3.so   SQLite for --cache; the program looks beside its real path, so
#   /usr/bin/dedup -> ../lib/dedup/dedup   a symbolic link finds it (AppContext.BaseDirectory is /usr/lib/dedup/)
#   /usr/share/man/man1/dedup.1.gz   docs/dedup.1
#   bash, zsh and fish completions   written by the program's own 'dedup completion SHELL'
# Usage: packaging/deb/build.sh [OUTPUT_FOLDER]   (default artifacts/deb); prints the .deb's path last.
# DEB_MAINTAINER="Name <address>" sets the Maintainer field (no address is invented here: the project has no public home yet).
# Needs: the .NET SDK and NativeAOT's prerequisites (clang, binutils), dpkg-deb, gzip. Runs as any user.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "${1:-$root/artifacts/deb}" && cd "${1:-$root/artifacts/deb}" && pwd)
version=$(tr -d '[:space:]' < "$root/version.txt")
arch=$(dpkg --print-architecture)
case "$arch" in
  amd64) rid=linux-x64 ;;
  arm64) rid=linux-arm64 ;;
  *) echo "packaging/deb/build.sh: no .NET runtime identifier for the Debian architecture '$arch'" >&2; exit 1 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dotnet publish "$root/src/Dedup.Cli" -c Release -r "$rid" -o "$work/publish" -v:q -nologo
# What the .deb installs, checked rather than assumed: the program and SQLite, nothing else (no symbols, no docs).
unexpected=$(cd "$work/publish" && ls -A | grep -v -x -e dedup -e libe_sqlite3.so || true)
if [ -n "$unexpected" ]; then
  echo "packaging/deb/build.sh: unexpected files in the publish folder: $unexpected" >&2
  exit 1
fi

pkg="$work/dedup_${version}_$arch"
install -d "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/lib/dedup" "$pkg/usr/share/man/man1" "$pkg/usr/share/doc/dedup" \
  "$pkg/usr/share/bash-completion/completions" "$pkg/usr/share/zsh/vendor-completions" "$pkg/usr/share/fish/vendor_completions.d"
install -m 755 "$work/publish/dedup" "$pkg/usr/lib/dedup/dedup"
# NuGet's libe_sqlite3.so carries its symbol table; a system library does not.
install -m 644 "$work/publish/libe_sqlite3.so" "$pkg/usr/lib/dedup/libe_sqlite3.so"
strip --strip-unneeded "$pkg/usr/lib/dedup/libe_sqlite3.so"
ln -s ../lib/dedup/dedup "$pkg/usr/bin/dedup"
gzip -9n < "$root/docs/dedup.1" > "$pkg/usr/share/man/man1/dedup.1.gz"
"$pkg/usr/lib/dedup/dedup" completion bash > "$pkg/usr/share/bash-completion/completions/dedup"
"$pkg/usr/lib/dedup/dedup" completion zsh > "$pkg/usr/share/zsh/vendor-completions/_dedup"
"$pkg/usr/lib/dedup/dedup" completion fish > "$pkg/usr/share/fish/vendor_completions.d/dedup.fish"
cat > "$pkg/usr/share/doc/dedup/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: dedup (Dedup.Core)

Files: *
Copyright: Dedup.Core contributors
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
 documentation files (the "Software"), to deal in the Software without restriction, including without limitation the
 rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit
 persons to whom the Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or substantial portions of the
 Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
 WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
 COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
 OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
EOF

# Depends: what the two ELF files need (ldd: libc.so.6 and libm.so.6, both in libc6), at the newest glibc symbol
# version they use. Recommends: OpenSSL, which .NET loads only for a TLS connection (--catalog with SSL).
glibc=$(objdump -T "$pkg/usr/lib/dedup/dedup" "$pkg/usr/lib/dedup/libe_sqlite3.so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
needed=$(objdump -p "$pkg/usr/lib/dedup/dedup" "$pkg/usr/lib/dedup/libe_sqlite3.so" | awk '/NEEDED/ { print $2 }' | sort -u | tr '\n' ' ')
for library in $needed; do
  case "$library" in
    libc.so.6 | libm.so.6 | ld-linux-*.so.*) ;;
    *) echo "packaging/deb/build.sh: the program needs $library, which the control file does not depend on yet" >&2; exit 1 ;;
  esac
done
cat > "$pkg/DEBIAN/control" <<EOF
Package: dedup
Version: $version
Architecture: $arch
Maintainer: ${DEB_MAINTAINER:-Dedup.Core contributors}
Installed-Size: $(du -sk --apparent-size "$pkg/usr" | cut -f1)
Depends: libc6 (>= $glibc)
Recommends: libssl3 | libssl1.1
Section: utils
Priority: optional
Description: find duplicate files exactly and fast, and replace them safely
 dedup finds files with the same contents (by size, then hashes, then bytes) and
 reports them as text, JSON or CSV; it can replace the copies with hard links,
 symbolic links, reflink clones or kernel-verified shared extents, or delete
 them, re-verifying every file first. A SQLite cache (--cache) makes rescans
 read only what changed.
EOF

deb="$out/dedup_${version}_$arch.deb"
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "$deb"
