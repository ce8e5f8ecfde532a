#!/usr/bin/env bash
# Runs every benchmark script in bench/ in turn. Each one runs a peer tool
# beside sitediag on the same local target, prints its own detail, and
# prints its table rows (bench/benchrow); this gathers them into one
# table — operation, ours, peer, ratio, goal — printed last and written
# to bench/results.json with the machine measured on. Nothing here fails
# on a timing; a script that fails makes the run fail.
#
#   bench/run.sh [script...]     (default: every bench/*.sh)
set -uo pipefail
cd "$(dirname "$0")"
scripts=("$@")
[ ${#scripts[@]} -gt 0 ] || scripts=(./*.sh)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for script in "${scripts[@]}"; do
  [ "$(basename "$script")" = run.sh ] && continue
  echo "== $script"
  "./$(basename "$script")" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "$script failed"; status=1; }
done
echo
(cd .. && go run ./bench/table -json bench/results.json <"$log") || status=1
exit $status
