#!/usr/bin/env bash
# The Windows build's tests: publishes tests/Dedup.Core.WindowsTests for win-x64 (self-contained, so the Wine prefix
# needs no .NET) and runs the xunit.v3 executable under Wine. Prints the runner's summary line; when the run cannot
# start or ends without one, prints a "Failed!" line instead, so .ci/run's closing totals count it. Exit status: the
# runner's (non-zero on any failed test), or 1 when Wine is missing, the publish fails or no summary was printed.
# Tests needing what Wine lacks (symbolic links, the real Recycle Bin, …) skip themselves, with the reason, under Wine.
set -uo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo ".ci/wine-tests.sh: $1" >&2
  echo "Failed!  - Failed:     1, Passed:     0, Skipped:     0, Total:     1 - Windows tests under Wine: $1"
  exit 1
}

# Debian's wine64 package puts the loader in /usr/lib/wine; the wine package adds /usr/bin/wine (which picks it).
wine=$(command -v wine64 || command -v wine || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; }) \
  || fail "wine is not installed (apt-get install wine64 wine); the Windows build's tests cannot run"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! dotnet publish tests/Dedup.Core.WindowsTests -c Release -r win-x64 --self-contained -o "$out/bin" -v:q -nologo >"$out/publish.log" 2>&1; then
  cat "$out/publish.log" >&2
  fail "dotnet publish -r win-x64 failed"
fi

# Quiet Wine, and a prefix of its own under /tmp: the first start creates it (20-60 s), later runs reuse it.
export WINEDEBUG=-all WINEPREFIX="${DEDUP_WINEPREFIX:-/tmp/dedup-wine-prefix}"
# The runtime's W^X (code pages mapped twice, writable and executable) crashes under Wine 8 on some kernels: on the
# 2026-11-29 machine image (kernel 6.18.44) every run ended in "Internal CLR error (0x80131506)" in a DynamicMethod's
# finalizer, at 2930d93 as at later commits; with W^X off, 34 tests ran, 0 failed, 3 runs of 3. Windows proper keeps it.
export DOTNET_EnableWriteXorExecute=0
timeout 1200 "$wine" "$out/bin/Dedup.Core.WindowsTests.exe" -noColor 2>&1 | tr -d '\r' | tee "$out/run.log"
status=${PIPESTATUS[0]}

grep -Eq 'Total: [0-9]+, Errors: [0-9]+, Failed: [0-9]+, Skipped: [0-9]+' "$out/run.log" \
  || fail "the test executable ended (status $status) without a summary"
exit "$status"
