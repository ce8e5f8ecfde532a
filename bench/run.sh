#!/usr/bin/env bash
# Runs every benchmark script in bench/ in turn. Each one runs a peer tool
# beside sitediag on the same local target and prints medians and ratios.
# Nothing here fails on a timing.
set -uo pipefail
cd "$(dirname "$0")"
status=0
for script in ./*.sh; do
  [ "$script" = ./run.sh ] && continue
  echo "== $script"
  "$script" || { echo "$script failed"; status=1; }
done
exit $status
