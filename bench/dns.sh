#!/usr/bin/env bash
# DNS records: all nine types through sitediag (POST /dnsrecord and the
# library) beside nine sequential dig calls, against the same local
# miekg/dns server. Prints medians, ratios and a cross-check that both
# tools see the same records. Installs dig (bind9-dnsutils) when missing.
# Nothing here fails on a timing; only a cross-check mismatch fails.
#
# Usage: bench/dns.sh [runs]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}

if ! command -v dig >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q bind9-dnsutils >/dev/null
  else
    echo "bench/dns.sh: dig is missing; install it as root: apt-get install bind9-dnsutils" >&2
    exit 1
  fi
fi

echo "dig: $(dig -v 2>&1 | head -n1)"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/dnsbench" ./bench/dnsbench
"$bin/dnsbench" -n "$runs" -dig "$(command -v dig)"
