#!/usr/bin/env bash
# Installs what sitediag needs, when it is missing.
#
#   scripts/setup.sh            what running needs (make run): Chromium,
#                               Node and npm, and Lighthouse
#   scripts/setup.sh --test     that, plus what only the tests use (make test):
#                               the services and tools the fixtures start,
#                               versitygw and Redocly CLI
#   --dry-run                   changes nothing; prints the plan, one line per
#                               part: "install|have <kind> <name> [where]"
#
# Debian packages need root; without it, this says what to install.
# Packages are installed without starting their services, and a service a
# package of this run enables at boot is disabled again: the tests start
# what they need, each on a port of its own, and stop it.
set -euo pipefail

with_tests=false
dry_run=false
for arg in "$@"; do
  case $arg in
  --test) with_tests=true ;;
  --dry-run) dry_run=true ;;
  *)
    echo "usage: $0 [--test] [--dry-run]" >&2
    exit 2
    ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)

# plan prints one line of the plan: "install" when the part is missing,
# "have" when it is there. It returns 0 (go ahead) only for a missing
# part outside a dry run.
plan() {
  local state=$1
  shift
  if $dry_run; then
    echo "$state $*"
    return 1
  fi
  [ "$state" = install ]
}

# Debian packages, each line "command package": the package is installed
# when the command is not on PATH. RUN is what the operations call; TEST
# is what only the tests' fixtures start (named, redis-server,
# gnutls-serv) or use (ip, nft, sysctl, openssl, delv, dnssec-signzone).
RUN_PACKAGES='
chromium chromium
node nodejs
npm npm
'
TEST_PACKAGES='
ip iproute2
nft nftables
sysctl procps
named bind9
dnssec-signzone bind9-utils
delv bind9-dnsutils
openssl openssl
gnutls-serv gnutls-bin
redis-server redis-server
'
# Units the packages above enable at boot in Debian.
SERVICE_UNITS='
bind9 named.service
redis-server redis-server.service
nftables nftables.service
'

packages=$RUN_PACKAGES
$with_tests && packages+=$TEST_PACKAGES

need_pkgs=()
while read -r cmd pkg; do
  [ -z "$cmd" ] && continue
  if command -v "$cmd" >/dev/null 2>&1; then
    $dry_run && echo "have apt $pkg"
  else
    $dry_run && echo "install apt $pkg"
    need_pkgs+=("$pkg")
  fi
done <<<"$packages"
if $dry_run; then
  for p in "${need_pkgs[@]}"; do
    while read -r pkg unit; do
      [ "$pkg" = "$p" ] && echo "quiet service $unit ($pkg: not started, not enabled at boot)"
    done <<<"$SERVICE_UNITS"
  done
fi

# apt_install installs packages without starting a service (a policy-rc.d
# that denies every start, unless the host has its own), then disables at
# boot the units of the packages it installed.
apt_install() {
  local own_policy=false
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# sitediag setup: install without starting services\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    own_policy=true
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q "$@" >/dev/null
  if $own_policy; then
    rm -f /usr/sbin/policy-rc.d
    trap - EXIT
  fi
  local pkg unit p
  for p in "$@"; do
    while read -r pkg unit; do
      [ "$pkg" = "$p" ] || continue
      if command -v deb-systemd-helper >/dev/null 2>&1; then
        deb-systemd-helper disable "$unit" >/dev/null 2>&1 || true
      elif command -v systemctl >/dev/null 2>&1; then
        systemctl disable "$unit" >/dev/null 2>&1 || true
      fi
      echo "setup: $unit is installed, not started, not enabled at boot"
    done <<<"$SERVICE_UNITS"
  done
}

if [ ${#need_pkgs[@]} -gt 0 ] && ! $dry_run; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${need_pkgs[*]}"
    apt_install "${need_pkgs[@]}"
  else
    echo "setup: missing packages: ${need_pkgs[*]} (install them as root: apt-get install ${need_pkgs[*]})" >&2
  fi
fi

npm_ci() { (cd "$1" && npm ci --no-audit --no-fund --loglevel=error); }

# Lighthouse, pinned by lighthouse/package.json and its lock file, goes
# into a folder of its version outside the checkout, where the lighthouse
# package looks by default (lighthouse.DefaultDirs): as root
# /usr/local/share/sitediag/lighthouse-<version>, else
# $XDG_DATA_HOME/sitediag/lighthouse-<version>.
lh_version=$(sed -n 's/^ *"lighthouse": *"\([^"]*\)".*/\1/p' "$root/lighthouse/package.json")
if [ "$(id -u)" = 0 ]; then
  lh_dir=/usr/local/share/sitediag/lighthouse-$lh_version
else
  lh_dir=${XDG_DATA_HOME:-$HOME/.local/share}/sitediag/lighthouse-$lh_version
fi
if [ -f "$lh_dir/node_modules/lighthouse/core/index.js" ]; then
  plan have npm "lighthouse@$lh_version" "$lh_dir" || true
elif plan install npm "lighthouse@$lh_version" "$lh_dir"; then
  if command -v npm >/dev/null 2>&1; then
    echo "setup: installing Lighthouse $lh_version into $lh_dir"
    mkdir -p "$(dirname "$lh_dir")"
    staging=$(mktemp -d "$lh_dir.XXXXXX")
    cp "$root/lighthouse/package.json" "$root/lighthouse/package-lock.json" "$staging/"
    npm_ci "$staging"
    chmod 755 "$staging"
    rm -rf "$lh_dir"
    mv "$staging" "$lh_dir"
  else
    echo "setup: npm is missing, so Lighthouse is not installed (/lighthouse answers 503)" >&2
  fi
fi

$with_tests || exit 0

# versitygw, the real S3 server the artifact-store tests start, built once
# from the Go module proxy into the cache internal/s3test reads (keep the
# version in step with s3test.Version).
vgw_version=v1.8.0
vgw="${SITEDIAG_VERSITYGW:-${XDG_CACHE_HOME:-$HOME/.cache}/sitediag/versitygw-$vgw_version}"
if [ -x "$vgw" ]; then
  plan have go "versitygw@$vgw_version" "$vgw" || true
elif plan install go "versitygw@$vgw_version" "$vgw"; then
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

# Redocly CLI, pinned by tools/redocly/package-lock.json, which lints
# /openapi.json.
if [ -x "$root/tools/redocly/node_modules/.bin/redocly" ]; then
  plan have npm redocly "$root/tools/redocly" || true
elif plan install npm redocly "$root/tools/redocly"; then
  if command -v npm >/dev/null 2>&1; then
    echo "setup: installing Redocly CLI (npm ci in tools/redocly/)"
    npm_ci "$root/tools/redocly"
  else
    echo "setup: npm is missing, so Redocly CLI is not installed (the OpenAPI lint test skips)" >&2
  fi
fi
