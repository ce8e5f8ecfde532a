#!/usr/bin/env bash
# Full TLS scan of one local server by sitediag, sslscan and testssl.sh:
# median wall time of each, the ratios, and whether all see the same
# protocol versions; then per real-server configuration. Timings are
# printed, never judged; the rows of the benchmark table carry the goals
# (sslscan: at most a third of its time on the Go server, issue 5; the
# median per-configuration ratio at most 0.10, issue 26).
#
#   bench/tlsscan.sh                 # 11 runs each, 3 of testssl (about 2 min a run)
#   RUNS=21 TESTSSL_RUNS=0 bench/tlsscan.sh
#   RUNS=1 CONFIGS='renegotiation|heartbeat' bench/tlsscan.sh   # only the configurations matching
#   TESTSSL=/path/to/testssl.sh bench/tlsscan.sh   # another testssl, e.g. 3.2 for its rating
#
# Per configuration it also prints sitediag's grade and client
# simulation beside testssl's rating and client simulation (testssl 3.2
# and later rate; Debian 12's 3.0.8 does not, and prints no grade).
#
# testssl runs with --nodns none: the targets are loopback addresses, and
# its DNS look-ups (CAA, rDNS) only wait for time-outs offline.
set -euo pipefail
# The table's row function; sourced before the cd, as $0 may be relative
# (bench/run.sh runs ./tlsscan.sh from bench/).
. "$(dirname "$0")/row.bash"
cd "$(dirname "$0")/.."

RUNS=${RUNS:-11}
TESTSSL_RUNS=${TESTSSL_RUNS:-3}

need=()
command -v sslscan >/dev/null || need+=(sslscan)
TESTSSL=${TESTSSL:-testssl}
[ "$TESTSSL_RUNS" -gt 0 ] && ! command -v "$TESTSSL" >/dev/null && need+=(testssl.sh)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "bench: missing ${need[*]} (apt-get install ${need[*]} as root)" >&2
    exit 1
  fi
  apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/tlsserver" ./bench/tlsserver
go build -o "$work/tlsscan" ./bench/tlsscan
"$work/tlsserver" >"$work/addr" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/addr" ] && break; sleep 0.1; done
[ -s "$work/addr" ] || { echo "bench: tlsserver printed no address in 5 s" >&2; exit 1; }
addr=$(cat "$work/addr")
echo "target: TLS 1.0–1.3 crypto/tls server on $addr ($(nproc) cores)"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# time_runs NAME N CMD… : runs CMD N times, one duration (ms) a line in $work/NAME.
time_runs() {
  local name=$1 n=$2
  shift 2
  : >"$work/$name"
  for _ in $(seq "$n"); do
    local t0
    t0=$(now_ms)
    "$@" >"$work/$name.out" 2>&1 || true # testssl exits non-zero when it finds something
    echo $(($(now_ms) - t0)) >>"$work/$name"
  done
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

time_runs sitediag "$RUNS" "$work/tlsscan" "https://$addr"
"$work/tlsscan" -protocols "https://$addr" >"$work/sitediag.protocols"

time_runs sslscan "$RUNS" sslscan --no-colour "$addr"
grep -E '^(SSLv[23]|TLSv1\.[0-3]) +enabled' "$work/sslscan.out" | awk '{print $1}' >"$work/sslscan.protocols"

tools=(sitediag sslscan)
if [ "$TESTSSL_RUNS" -gt 0 ]; then
  # testssl will not write over a CSV file: each run gets a new one.
  testssl_run() { rm -f "$work/testssl.csv"; "$TESTSSL" --quiet --color 0 --warnings off --nodns none --csvfile "$work/testssl.csv" "$addr"; }
  time_runs testssl "$TESTSSL_RUNS" testssl_run
  awk -F'","' '$5 ~ /^offered/ {print $1}' "$work/testssl.csv" | tr -d '"' |
    sed -n 's/^SSLv2$/SSLv2/p; s/^SSLv3$/SSLv3/p; s/^TLS1$/TLSv1.0/p; s/^TLS1_1$/TLSv1.1/p; s/^TLS1_2$/TLSv1.2/p; s/^TLS1_3$/TLSv1.3/p' >"$work/testssl.protocols"
  tools+=(testssl)
fi

ours=$(median "$work/sitediag")
printf '\n%-9s %5s %11s %16s  %s\n' tool runs "median ms" "sitediag/tool" "protocols seen"
for t in "${tools[@]}"; do
  m=$(median "$work/$t")
  ratio=$(awk -v a="$ours" -v b="$m" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
  printf '%-9s %5s %11s %16s  %s\n' "$t" "$(wc -l <"$work/$t")" "$m" "$ratio" "$(paste -sd' ' "$work/$t.protocols")"
  goal=
  [ "$t" = sslscan ] && goal="<= 0.33" # issue 5: at most a third of sslscan's time
  [ "$t" = sitediag ] || row "/tlsscan, Go server with every suite" "$ours" "$m" ms "$t" "$goal" "$(wc -l <"$work/$t")"
done
echo
for t in "${tools[@]:1}"; do
  if cmp -s "$work/sitediag.protocols" "$work/$t.protocols"; then
    echo "protocol set: sitediag and $t agree"
  else
    echo "protocol set: sitediag and $t DIFFER"
  fi
done

# Per configuration: real servers (openssl s_server, gnutls-serv) with
# the shapes issue 15 is about, scanned once by each tool. One line per
# tool: sitediag's verdicts (suites per protocol, key exchange, findings,
# chain), sslscan's (protocols, DHE sizes and groups), testssl's
# (LOGJAM, BEAST, chain of trust) when TESTSSL_RUNS > 0, and the time
# ratio. CONFIGS=0 skips this part; CONFIGS=<regex> runs only the
# configurations whose name matches.
[ "${CONFIGS:-1}" = 0 ] && exit 0
only=${CONFIGS:-1}
[ "$only" = 1 ] && only=.
command -v openssl >/dev/null || { echo "bench: configurations need openssl" >&2; exit 1; }
pki=$work/pki
mkdir -p "$pki"
(
  cd "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem -subj /CN=Bench\ Root -days 3650 \
    -addext basicConstraints=critical,CA:true -addext keyUsage=keyCertSign 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout inter.key -out inter.csr -subj /CN=Bench\ Intermediate 2>/dev/null
  printf 'basicConstraints=critical,CA:true\nkeyUsage=keyCertSign\n' >ca.ext
  openssl x509 -req -in inter.csr -CA root.pem -CAkey root.key -CAcreateserial -out inter.pem -days 1825 -extfile ca.ext 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj /CN=localhost 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >leaf.ext
  openssl x509 -req -in leaf.csr -CA inter.pem -CAkey inter.key -CAcreateserial -out leaf.pem -days 365 -extfile leaf.ext 2>/dev/null
  cat leaf.pem inter.pem >chain.pem
  # RFC 2409 Oakley group 2, the 1024-bit common prime testssl flags.
  printf '%s\n' '-----BEGIN DH PARAMETERS-----' \
    'MIGHAoGBAP//////////yQ/aoiFowjTExmKLgNwc0SkCTgiKZ8x0Agu+pjsTmyJR' \
    'Sgh5jjQE3e+VGbPNOkMbMCsKbfJfFDdP4TVtbVHCReSFtXZiXn7G9ExC6aY37WsL' \
    '/1y29Aa37e44a/taiZ+lrp8kEXxLH+ZJKGZR7OZTgf//////////AgEC' \
    '-----END DH PARAMETERS-----' >oakley2.pem
)
base=(-cert "$pki/leaf.pem" -key "$pki/leaf.key" -www -quiet)
configs=(
  "chain leaf+intermediate|openssl s_server ${base[*]} -cert_chain $pki/inter.pem"
  "chain leaf+root (no intermediate)|openssl s_server ${base[*]} -cert_chain $pki/root.pem"
  "DHE-only, Oakley group 2|openssl s_server ${base[*]} -cert_chain $pki/inter.pem -dhparam $pki/oakley2.pem -no_tls1_3 -cipher DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-SHA:@SECLEVEL=0"
  "TLS 1.0 CBC (BEAST)|openssl s_server ${base[*]} -cert_chain $pki/inter.pem -tls1 -cipher AES128-SHA:ECDHE-RSA-AES256-SHA:@SECLEVEL=0"
  "TLS 1.3 groups P-384:X25519:ffdhe2048|openssl s_server ${base[*]} -cert_chain $pki/inter.pem -tls1_3 -groups P-384:X25519:ffdhe2048"
  "gnutls P-384 + ffdhe3072|gnutls-serv --x509certfile $pki/leaf.pem --x509keyfile $pki/leaf.key --priority NORMAL:-VERS-TLS1.3:-CURVE-ALL:+CURVE-SECP384R1:+GROUP-FFDHE3072:+DHE-RSA --quiet"
  "client renegotiation allowed|openssl s_server ${base[*]} -cert_chain $pki/inter.pem -client_renegotiation"
  "TLS 1.0-1.2 RSA key transport, no tickets (ROBOT, fallback)|openssl s_server ${base[*]} -cert_chain $pki/inter.pem -no_tls1_3 -cipher AES128-SHA:AES256-GCM-SHA384:@SECLEVEL=0 -no_ticket"
  "no session cache, no tickets|openssl s_server ${base[*]} -cert_chain $pki/inter.pem -no_ticket -no_cache"
  "gnutls heartbeat|gnutls-serv --x509certfile $pki/leaf.pem --x509keyfile $pki/leaf.key --heartbeat --quiet"
  "TLS 1.3 only|openssl s_server ${base[*]} -cert_chain $pki/inter.pem -tls1_3"
  "TLS 1.0-1.3, OpenSSL DEFAULT at security level 0|openssl s_server ${base[*]} -cert_chain $pki/inter.pem -cipher DEFAULT:@SECLEVEL=0"
  "gnutls NORMAL with its chain|gnutls-serv --x509certfile $pki/chain.pem --x509keyfile $pki/leaf.key --quiet"
  "gnutls without RFC 5746|gnutls-serv --x509certfile $pki/leaf.pem --x509keyfile $pki/leaf.key --priority NORMAL:%DISABLE_SAFE_RENEGOTIATION --quiet"
)
echo
echo "== configurations (one run each; ratio = sitediag ms / tool ms)"
for c in "${configs[@]}"; do
  name=${c%%|*}
  cmd=${c#*|}
  [[ $name =~ $only ]] || continue
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  case $cmd in
    openssl*) $cmd -accept "127.0.0.1:$port" >/dev/null 2>&1 & ;;
    gnutls*) command -v gnutls-serv >/dev/null || { echo "-- $name: gnutls-serv missing"; continue; }
      $cmd --port "$port" >/dev/null 2>&1 & ;;
  esac
  cfg_pid=$!
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  echo "-- $name"
  t0=$(now_ms)
  printf '  %-9s %s\n' sitediag "$("$work/tlsscan" -roots "$pki/root.pem" -verdicts "https://127.0.0.1:$port" 2>&1)"
  ours_ms=$(($(now_ms) - t0))
  # s_server serves one connection at a time and sleeps 1 s after
  # refusing a renegotiation (each tool tests it): let that pass before
  # the next tool, so none is timed with another's wait.
  settle() { sleep 1.2; }
  settle
  t0=$(now_ms)
  sslscan --no-colour "127.0.0.1:$port" >"$work/cfg.sslscan" 2>&1 || true
  ssl_ms=$(($(now_ms) - t0))
  settle
  # A tool that found nothing leaves an empty column, not a failed bench.
  protos=$(grep -E '^(SSLv[23]|TLSv1\.[0-3]) +enabled' "$work/cfg.sslscan" | awk '{print $1}' | paste -sd' ' || true)
  kx=$(grep -E '^(Preferred|Accepted)' "$work/cfg.sslscan" | grep -oE '(DHE [0-9]+ bits|Curve [^ ]+)' | sort -u | paste -sd',' || true)
  groups=$(sed -n '/Key Exchange Group/,/^$/p' "$work/cfg.sslscan" | grep -E '^TLS' | awk '{print $1" "$4}' | paste -sd',' || true)
  # Its heartbleed, renegotiation and fallback lines, one word each.
  checks=$(awk '/^  TLS Fallback SCSV:/ {getline; printf "fallback: %s; ", $0}
    /^  TLS renegotiation:/ {getline; printf "renegotiation: %s; ", $0}
    /to heartbleed$/ {seen = 1; if ($0 !~ /not vulnerable/) hb = 1}
    END {if (seen) printf "heartbleed: %s", (hb ? "VULNERABLE" : "not vulnerable")}' "$work/cfg.sslscan" || true)
  printf '  %-9s %s | kx %s | groups %s | %s\n' sslscan "$protos" "$kx" "$groups" "$checks"
  cfg_ratio=$(awk -v a="$ours_ms" -v b="$ssl_ms" 'BEGIN {printf "%.4f", a / b}')
  echo "$ours_ms" >>"$work/times.ours"
  echo "$ssl_ms" >>"$work/times.sslscan"
  echo "$cfg_ratio" >>"$work/times.ratios"
  line="  ratio sitediag/sslscan $cfg_ratio ($ours_ms / $ssl_ms ms)"
  if [ "$TESTSSL_RUNS" -gt 0 ]; then
    rm -f "$work/cfg.csv"
    t0=$(now_ms)
    "$TESTSSL" --quiet --color 0 --warnings batch --nodns none --add-ca "$pki/root.pem" --csvfile "$work/cfg.csv" "127.0.0.1:$port" >/dev/null 2>&1 || true
    tssl_ms=$(($(now_ms) - t0))
    settle
    printf '  %-9s %s\n' testssl "$(awk -F'","' '$1 ~ /^"(LOGJAM|LOGJAM-common_primes|BEAST|cert_chain_of_trust|DH_groups|FS_ECDHE_curves|cert_trust|heartbleed|ROBOT|secure_renego|secure_client_renego|fallback_SCSV|sessionresumption_ticket|sessionresumption_ID)$/ {gsub(/"/, "", $1); v = $4; if ($1 ~ /^sessionresumption/) {v = $5; gsub(/[" ]+/, "_", v)}; print $1"="v}' "$work/cfg.csv" | paste -sd' ')"
    printf '  %-9s grade %s (%s)\n' testssl "$(awk -F'","' '$1 == "\"overall_grade" {print $5}' "$work/cfg.csv" | tr -d '"')" \
      "$(awk -F'","' '$1 ~ /^"grade_cap_(reason|warning)/ {print $5}' "$work/cfg.csv" | tr -d '"' | paste -sd';')"
    awk -F'","' '$1 ~ /^"clientsimulation-/ {gsub(/"/, "", $1); sub(/^clientsimulation-/, "", $1); gsub(/"/, "", $5); printf "    sim %-30s %s\n", $1, $5}' "$work/cfg.csv"
    line+=", sitediag/testssl $(awk -v a="$ours_ms" -v b="$tssl_ms" 'BEGIN {printf "%.3f", a / b}') ($tssl_ms ms)"
  fi
  echo "$line"
  echo "  sitediag $("$work/tlsscan" -roots "$pki/root.pem" -grade "https://127.0.0.1:$port" 2>&1)"
  kill "$cfg_pid" 2>/dev/null || true
  wait "$cfg_pid" 2>/dev/null || true
done
# Issue 26's goal: over the configurations, the median of the
# per-configuration ratios at most 0.10 of sslscan's time.
if [ -s "$work/times.ratios" ]; then
  echo
  echo "configurations: sitediag/sslscan median ratio $(median "$work/times.ratios") over $(wc -l <"$work/times.ratios")"
  row "/tlsscan per configuration (median ratio)" "$(median "$work/times.ours")" "$(median "$work/times.sslscan")" ms sslscan "<= 0.1" \
    "$(wc -l <"$work/times.ratios")" "$(median "$work/times.ratios")"
fi
