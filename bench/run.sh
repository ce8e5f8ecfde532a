#!/usr/bin/env bash
# Runs every benchmark script in bench/ in turn. Each one runs a peer tool
# beside sitediag on the same local target, prints its own detail, and
# prints its table rows (bench/benchrow, row in bench/row.bash); this
# prints how long each script took and gathers the rows into one table —
# operation, ours, peer, ratio, goal, runs, load — printed last below the
# machine (CPU, cores, load average at the start and at the end) and
# written to bench/results.json. Nothing here fails on a timing; a script
# that fails (a peer disagreeing on what it found, a tool missing) makes
# the run fail.
#
#   bench/run.sh                  every script of the default set below
#   bench/run.sh up.sh mtr.sh 7   those scripts, each with its own defaults
#                                 (arguments after a script are its own)
set -uo pipefail
cd "$(dirname "$0")"

# The default set, with the arguments that keep the whole run near half
# an hour on a 2-core machine while every timed row is a median of at
# least 5 runs (or of at least 5 pages, sites or cases measured once
# each). The order: the #28 goals first.
defaults=(
  up.sh
  portscan.sh
  browser.sh
  soak.sh
  load.sh
  scale.sh
  dns.sh
  ttfb.sh
  brokenlink.sh
  mtr.sh
  "TESTSSL_RUNS=0 tlsscan.sh" # testssl takes minutes a scan; sslscan is the peer of the goal
  content.sh
  pagefacts.sh
  brand.sh
  observatory.sh
  lighthouse.sh
)
# Scripts in bench/ that are not benchmarks, with the reason.
declare -A skipped=(
  [run.sh]="this script"
  [clients.sh]="a check that the generated clients build and call the server: no peer, no number (run it alone)"
)

# script_of ENTRY prints the script an entry of defaults runs.
script_of() {
  local w
  for w in $1; do
    [[ $w == *=* ]] || { echo "$w"; return; }
  done
}

# Every script in bench/ must be run or skipped with a reason, so a new
# one cannot be left out of the table by being forgotten here.
listed=" "
for entry in "${defaults[@]}"; do listed+="$(script_of "$entry") "; done
for f in *.sh; do
  if [[ $listed != *" $f "* && -z ${skipped[$f]:-} ]]; then
    echo "bench/run.sh: $f is neither in the default set nor skipped with a reason" >&2
    exit 2
  fi
done

entries=()
if [ $# -gt 0 ]; then
  # Scripts named on the command line; words after one that are not
  # scripts are its arguments.
  for arg in "$@"; do
    arg=$(basename "$arg")
    if [[ $arg == *.sh ]]; then
      entries+=("$arg")
    elif [ ${#entries[@]} -gt 0 ]; then
      entries[-1]+=" $arg"
    else
      echo "bench/run.sh: $arg: name a script first" >&2
      exit 2
    fi
  done
else
  entries=("${defaults[@]}")
fi

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
load_start=$(loadavg)
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), $(nproc) cores; load average at start: $load_start"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for entry in "${entries[@]}"; do
  read -ra words <<<"$entry"
  n=0
  while [[ ${words[n]} == *=* ]]; do n=$((n + 1)); done
  script=${words[n]}
  echo
  echo "== $entry"
  before=$(loadavg) start=$(date +%s)
  env "${words[@]:0:n}" "./$script" "${words[@]:n+1}" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  seconds=$(($(date +%s) - start))
  [ "$rc" = 0 ] || { echo "$script failed (exit $rc)"; status=1; }
  echo "== $entry: $seconds s, load average $before → $(loadavg)"
  jq -cn --arg entry "$entry" --argjson seconds "$seconds" --argjson exit "$rc" --arg loadStart "$before" --arg loadEnd "$(loadavg)" \
    '{script: $entry, seconds: $seconds, exit: $exit, loadStart: $loadStart, loadEnd: $loadEnd}' | sed 's/^/BENCHSCRIPT /' >>"$log"
done
echo
(cd .. && go run ./bench/table -json bench/results.json -load-start "$load_start" <"$log") || status=1
exit $status
