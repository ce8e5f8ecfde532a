# The row function of the benchmark table; common.bash sources it.

# row OPERATION OURS PEER UNIT PEER_NAME GOAL RUNS [RATIO] prints one line
# of the benchmark table (see bench/benchrow) for bench/run.sh to gather:
# the medians, the ratio ours/peer (of the medians unless RATIO is
# given), the goal ("<= 0.3", ">= 0.8" or "") and the one-minute load
# average now.
row() {
  local ratio=${8:-}
  [ -n "$ratio" ] || ratio=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')
  jq -cn --arg op "$1" --argjson ours "$2" --argjson peer "$3" --arg unit "$4" --arg peerName "$5" \
    --arg goal "$6" --argjson runs "$7" --argjson ratio "$ratio" --argjson load "$(cut -d' ' -f1 /proc/loadavg)" \
    '{operation: $op, ours: $ours, peer: $peer, unit: $unit, peerName: $peerName, ratio: $ratio, goal: $goal, runs: $runs, load: $load}' |
    sed 's/^/BENCHROW /'
}
