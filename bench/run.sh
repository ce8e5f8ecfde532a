#!/usr/bin/env bash
# Runs every benchmark script in bench/ (the executable *.sh beside this
# one), each beside its peer tool on local targets. Never fails on timing.
set -euo pipefail
cd "$(dirname "$0")"
for script in *.sh; do
  if [ "$script" = run.sh ] || [ ! -x "$script" ]; then
    continue
  fi
  echo "== $script"
  "./$script"
  echo
done
