#!/usr/bin/env bash
# Rewrites a project's PublicAPI.Unshipped.txt from what Microsoft.CodeAnalysis.PublicApiAnalyzers reports (RS0016:
# public but not declared; RS0017: declared but gone), for contributors without an IDE code fix. Review the diff:
# every line is a public API change.  Usage: .ci/update-public-api.sh src/Dedup.Core
set -euo pipefail
project="${1:?usage: $0 src/PROJECT}"
file="$project/PublicAPI.Unshipped.txt"
log="$(mktemp)"
dotnet build "$project" --no-incremental -p:TreatWarningsAsErrors=false >"$log" 2>&1 || true
add="$(grep -oP "RS0016: Symbol '\K.*(?=' is not part of the declared public API)" "$log" | sort -u || true)"
remove="$(grep -oP "RS0017: Symbol '\K.*(?=' is part of the declared API, but is either not public or could not be found)" "$log" | sort -u || true)"
{
  grep -v '^#' "$file" | grep -vxF -f <(printf '%s\n' "$remove") || true
  printf '%s\n' "$add"
} | grep -v '^$' | LC_ALL=C sort -u >"$log.body"
{ echo '#nullable enable'; cat "$log.body"; } >"$file"
echo "$file: $(printf '%s' "$add" | grep -c . || true) added, $(printf '%s' "$remove" | grep -c . || true) removed"
rm -f "$log" "$log.body"
