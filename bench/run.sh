#!/usr/bin/env bash
# Runs every benchmark script in bench/ (each prints its medians and
# ratios). Timings are reported, never judged.
set -euo pipefail
cd "$(dirname "$0")"
for script in *.sh; do
  case "$script" in run.sh | lib.sh) continue ;; esac
  echo "=== bench/$script"
  bash "./$script"
done
