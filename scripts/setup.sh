#!/usr/bin/env bash
# Installs what sitediag's operations and tests need, when it is missing.
# Debian packages need root; without it, this says what to install.
set -euo pipefail

need_pkgs=()
# Each line is "command package": the package is installed when the
# command is not on PATH.
while read -r cmd pkg; do
  [ -z "$cmd" ] && continue
  command -v "$cmd" >/dev/null 2>&1 || need_pkgs+=("$pkg")
done <<'LIST'
ip iproute2
nft nftables
sysctl procps
chromium chromium
node nodejs
npm npm
named bind9
dnssec-signzone bind9-utils
delv bind9-dnsutils
openssl openssl
gnutls-serv gnutls-bin
redis-server redis-server
LIST

if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${need_pkgs[*]}"
    apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q "${need_pkgs[@]}" >/dev/null
  else
    echo "setup: missing packages: ${need_pkgs[*]} (install them as root: apt-get install ${need_pkgs[*]})" >&2
  fi
fi

# Lighthouse, pinned by lighthouse/package-lock.json, for /lighthouse.
root=$(cd "$(dirname "$0")/.." && pwd)
npm_ci() { (cd "$1" && npm ci --no-audit --no-fund --loglevel=error); }
if [ ! -f "$root/lighthouse/node_modules/lighthouse/core/index.js" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "setup: installing Lighthouse (npm ci in lighthouse/)"
    npm_ci "$root/lighthouse"
  else
    echo "setup: npm is missing, so Lighthouse is not installed (/lighthouse answers 503)" >&2
  fi
fi

# versitygw, the real S3 server the artifact-store tests start, built once
# from the Go module proxy into the cache internal/s3test reads (keep the
# version in step with s3test.Version).
vgw_version=v1.8.0
vgw="${SITEDIAG_VERSITYGW:-${XDG_CACHE_HOME:-$HOME/.cache}/sitediag/versitygw-$vgw_version}"
if [ ! -x "$vgw" ]; then
  if command -v go >/dev/null 2>&1; then
    echo "setup: building versitygw $vgw_version (S3 server for the tests) into $vgw"
    mkdir -p "$(dirname "$vgw")"
    gobin=$(mktemp -d)
    if GOBIN="$gobin" GOFLAGS=-buildvcs=false go install "github.com/versity/versitygw/cmd/versitygw@$vgw_version"; then
      mv "$gobin/versitygw" "$vgw"
    else
      echo "setup: versitygw did not build; the S3 tests will try again" >&2
    fi
    rm -rf "$gobin"
  else
    echo "setup: go is missing, so versitygw is not built (the S3 tests skip)" >&2
  fi
fi

# With --test, what only the tests use: Redocly CLI, pinned by
# tools/redocly/package-lock.json, which lints /openapi.json.
if [ "${1:-}" = --test ] && [ ! -x "$root/tools/redocly/node_modules/.bin/redocly" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "setup: installing Redocly CLI (npm ci in tools/redocly/)"
    npm_ci "$root/tools/redocly"
  else
    echo "setup: npm is missing, so Redocly CLI is not installed (the OpenAPI lint test skips)" >&2
  fi
fi
