#!/usr/bin/env bash
# The acting soak at scale: runs DEDUP_SOAK_TRIALS seeded trials (default 10,000) of tests/Dedup.Core.Tests/Soak
# (every action kind, plans from scans and from reports, folder actions, with the user's changes between scan,
# plan and apply, at the protocol's fault hooks and from a concurrent thread) and prints the tally.
# Needs root for the btrfs loop mount (clone and dedupe trials): eval "$(.ci/btrfs-setup.sh)" first.
# Usage: benchmarks/soak/run.sh [TRIALS] [FIRST_SEED]
set -euo pipefail
cd "$(dirname "$0")/../.."
trials=${1:-10000}
first=${2:-1}
[ -n "${DEDUP_TEST_BTRFS:-}" ] || eval "$(.ci/btrfs-setup.sh --require)"
dotnet build tests/Dedup.Core.Tests -c Release -v:q -nologo >/dev/null
log=$(mktemp)
start=$(date +%s)
DEDUP_SOAK_TRIALS=$trials DEDUP_SOAK_FIRST=$first dotnet test tests/Dedup.Core.Tests -c Release --no-build \
  --filter "FullyQualifiedName~Soak.ActingSoakTests" --logger "console;verbosity=detailed" >"$log" 2>&1 || true
grep -E '^ *(FAILED|soak:)' "$log" | sed 's/^ *//' | head -50
echo "commit $(git rev-parse --short HEAD), $(( $(date +%s) - start )) s, full log: $log"
grep -q "soak: $trials trials from seed $first, 0 failed" "$log"
