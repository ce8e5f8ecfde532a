#!/usr/bin/env bash
# Generated clients work: starts the API server (examples/server) on a
# free loopback port, fetches the description it serves at /openapi.json,
# generates the Go client with oapi-codegen and the TypeScript types with
# openapi-typescript, compiles both (go build; tsc --strict), and calls
# the server with the Go client (bench/clients/main.go): health, the
# HTTP operations and three browser operations against a local page,
# which the server reaches through its allow list (127.0.0.0/8). Exits
# non-zero when a step or a call fails.
#
#   bench/clients.sh
#
# Tools: oapi-codegen from the Go module proxy at the version below;
# openapi-typescript and typescript pinned in tools/clients (package.json
# and lock, installed here with npm ci). Chromium: SITEDIAG_CHROME_PATH,
# else /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
oapi_codegen=github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2

work=$(mktemp -d "${TMPDIR:-/tmp}/sitediag-clients.XXXXXX")
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { printf '== %s\n' "$*"; }

step "tools: npm ci in tools/clients; $oapi_codegen"
(cd tools/clients && npm ci --no-audit --no-fund --silent)
go run "$oapi_codegen" --version

step "server: examples/server on 127.0.0.1:0"
go build -o "$work/server" ./examples/server
key="clients-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
"$work/server" -addr 127.0.0.1:0 -api-keys "$key" -allow-networks 127.0.0.0/8 -rate-limit 0 \
  -data-dir "$work/data" -chrome-path "${SITEDIAG_CHROME_PATH:-/usr/bin/chromium}" 2>"$work/server.log" &
server_pid=$!
addr=
for _ in $(seq 300); do
  addr=$(sed -n 's/.*msg=listening addr=\([0-9.:]*\).*/\1/p' "$work/server.log")
  [ -n "$addr" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$addr" ] || { echo "the server did not say where it listens" >&2; cat "$work/server.log" >&2; exit 1; }
api="http://$addr"
curl -fsS "$api/openapi.json" -o "$work/openapi.json"
echo "description: $(wc -c <"$work/openapi.json") bytes from $api/openapi.json"

step "Go client: oapi-codegen, go build"
cp -r bench/clients "$work/go"
mkdir -p "$work/go/client"
go run "$oapi_codegen" -generate types,client -package client -o "$work/go/client/client.gen.go" "$work/openapi.json"
echo "client.gen.go: $(wc -l <"$work/go/client/client.gen.go") lines"
(cd "$work/go" && go vet ./... && go build -o "$work/clients" .)

step "TypeScript: openapi-typescript, tsc --strict"
# A member with a default is optional in a request: absent, it takes the
# default (openapi-typescript would make it required).
"$root/tools/clients/node_modules/.bin/openapi-typescript" --default-non-nullable=false "$work/openapi.json" -o "$work/go/sitediag.d.ts" 2>&1 | tail -n 1
echo "sitediag.d.ts: $(wc -l <"$work/go/sitediag.d.ts") lines"
(cd "$work/go" && "$root/tools/clients/node_modules/.bin/tsc" -p tsconfig.json)
echo "tsc: no error"

step "calls with the Go client"
"$work/clients" -api "$api" -key "$key"
