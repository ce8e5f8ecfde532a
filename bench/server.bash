# Shared by the bench scripts that load the example server: builds it and
# starts it on 127.0.0.1 (loopback allowed, no rate limit, metrics on)
# with its data in $work. Source it after common.bash; run_loadbench does
# it all, start_server and stop_server are its parts.

# start_server builds examples/server into $work and starts it; it sets
# $server_pid, $addr and $metrics.
start_server() {
  [ -n "${SITEDIAG_CHROME_PATH:-}" ] || need chromium chromium
  local chrome=${SITEDIAG_CHROME_PATH:-$(command -v chromium)}
  go build -o "$work/server" ./examples/server
  env SITEDIAG_API_KEYS=bench SITEDIAG_RATE_LIMIT=0 SITEDIAG_ALLOW_NETWORKS=127.0.0.1/32 \
    SITEDIAG_METRICS_ADDR=127.0.0.1:0 SITEDIAG_CHROME_PATH="$chrome" \
    "$work/server" -addr 127.0.0.1:0 -data-dir "$work/data" 2>"$work/server.log" >/dev/null &
  server_pid=$!
  addr= metrics=
  for _ in $(seq 100); do
    addr=$(sed -n 's/.*msg=listening addr=\([^ ]*\).*/\1/p' "$work/server.log")
    metrics=$(sed -n 's/.*msg=metrics addr=\([^ ]*\).*/\1/p' "$work/server.log")
    [ -n "$addr" ] && [ -n "$metrics" ] && return
    sleep 0.1
  done
  echo "bench: server did not start: $(cat "$work/server.log")" >&2
  exit 1
}

# stop_server ends the server, if it was started.
stop_server() {
  if [ -n "${server_pid:-}" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}

# run_loadbench ARGS... builds the server and bench/loadbench in a fresh
# $work, starts the server, runs loadbench against it with ARGS, and
# cleans up on exit. Run it from the repository's root.
run_loadbench() {
  work=$(mktemp -d)
  trap 'stop_server; rm -rf "$work"' EXIT
  start_server
  go build -o "$work/loadbench" ./bench/loadbench
  "$work/loadbench" -api "http://$addr" -key bench -pid "$server_pid" -metrics "$metrics" "$@"
}
