#!/usr/bin/env bash
# RPC throughput over TLS: gonerod vs monerod, same chain, same machine, one run (docs/tls.md §6).
#
# Usage: bench/tls.sh [-d SECONDS] [-w SECONDS] [-c CONNS] [options]
#   -d SECONDS     measured duration of each wrk run (default 10)
#   -w SECONDS     warm-up before each measured run, not reported (default 2)
#   -c CONNS       concurrent connections (default 16; at most 25, the per-address limit of both servers)
#   --chain FILE   export file to serve (default: testdata/regtest/blockchain.raw, 300 blocks)
#   --gonerod BIN  benchmark this gonerod binary instead of building ./cmd/gonerod
#   --port-base N  ports N (monerod p2p), N+1 (monerod rpc), N+2 (gonerod rpc) (default 38690)
#   --cpus MODE    split (default): each server on CPU 0 alone, wrk (1 thread) on CPU 1 alone, as in
#                  bench/rpc.sh; shared: everything shares every core
#
# What it does: imports the chain into monerod (monero-blockchain-import) and gonerod, starts both with
# --rpc-ssl enabled (TLS only) and their own generated certificates (monerod: RSA 4096; gonerod: ECDSA
# P-256, docs/tls.md §5), checks that both refuse plain HTTP and answer the benchmarked requests over
# TLS alike, then measures with wrk and bench/rpc/rpc.lua (the load tool of bench/rpc.sh), each run after
# a warm-up, gonerod then monerod:
#   keep-alive   CONNS TLS connections for the whole run: get_info, and a wallet's idle /getblocks.bin
#   new conn     one new TCP connection and full TLS handshake per request (RPC_CLOSE=1: the request
#                says "Connection: close"; neither server resumes TLS sessions): get_info
#   new conn, same certificate   the new-connection run again with gonerod serving monerod's own
#                generated RSA 4096 certificate: the handshake's cost with the same key
# and prints requests/s, p50/p99 latency and server CPU for each, and gonerod/monerod as ratios. The
# issue's target: gonerod's TLS throughput at least monerod's (ratio >= 1).
#
# Network: everything runs inside the network namespace $GONERO_NETNS (default gonero-test), which has
# loopback alone. Needs root, monerod, monero-blockchain-import, wrk, curl, jq, go. Bounded: 5 measured
# runs plus warm-ups (about (d+w)*10 s plus ~40 s of setup); every process started here is stopped on
# exit, error or Ctrl-C.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-test}

duration=10 warmup=2 conns=16 cpus_mode=split port_base=38690
chain_file=$root/testdata/regtest/blockchain.raw
gonerod_bin=

while (($#)); do
  case "$1" in
    -d) duration=${2:?-d needs seconds}; shift 2 ;;
    -w) warmup=${2:?-w needs seconds}; shift 2 ;;
    -c) conns=${2:?-c needs a count}; shift 2 ;;
    --chain) chain_file=${2:?}; shift 2 ;;
    --gonerod) gonerod_bin=${2:?}; shift 2 ;;
    --port-base) port_base=${2:?}; shift 2 ;;
    --cpus) cpus_mode=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) unknown_arg "$1" ;;
  esac
done
[[ $duration =~ ^[1-9][0-9]*$ ]] && ((duration <= 120)) || die "-d must be 1..120 seconds"
[[ $warmup =~ ^[0-9]+$ ]] && ((warmup <= 30)) || die "-w must be 0..30 seconds"
[[ $conns =~ ^[1-9][0-9]*$ ]] && ((conns <= 25)) || die "-c must be 1..25"
[[ $cpus_mode == shared || $cpus_mode == split ]] || die "--cpus must be shared or split"
check_port_base "$port_base"
[[ -f $chain_file ]] || die "chain file $chain_file not found"
chain_file=$(cd "$(dirname "$chain_file")" && pwd)/$(basename "$chain_file")
m_p2p=$port_base m_rpc=$((port_base + 1)) g_rpc=$((port_base + 2))

work= gonerod_pid= monerod_pid=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [[ -n $fg_pid ]] && kill -TERM "$fg_pid" 2>/dev/null && wait "$fg_pid" 2>/dev/null
  stop_gonerod
  stop_monerod
  [[ -n $work ]] && rm -rf "$work"
  exit "$rc"
}
on_exit cleanup

need_root
exec 9<"$0"
flock -n 9 || die "another bench/tls.sh is running"
need_tools "apt-get install -y monero wrk curl jq" ip monerod monero-blockchain-import curl jq wrk go
ensure_ns
for p in "$m_p2p" "$m_rpc" "$g_rpc"; do
  port_busy "$p" && die "port $p is in use in namespace $NS (try --port-base)"
done

servers=()
client=()
if [[ $cpus_mode == split ]]; then
  servers=(taskset -c 0)
  client=(taskset -c 1)
fi

work=$(mktemp -d /tmp/gonero-bench-tls.XXXXXX)
[[ -n $gonerod_bin ]] || note "building gonerod"
gonerod_to "$work/gonerod"
go_build "$work/benchtool" ./bench/rpc/benchtool

note "importing $(basename "$chain_file") into monerod and gonerod"
run_in "$work" ip netns exec "$NS" monero-blockchain-import --regtest --fixed-difficulty 1 --data-dir "$work/m" \
  --input-file "$chain_file" >"$work/monero-import.out" 2>&1 || { tail -20 "$work/monero-import.out" >&2; die "monero-blockchain-import failed"; }
run_in "$work" "$work/gonerod" import --regtest --fixed-difficulty 1 --data-dir "$work/g" --input-file "$chain_file" \
  >"$work/gonerod-import.out" 2>&1 || { tail -20 "$work/gonerod-import.out" >&2; die "gonerod import failed"; }

# curl over TLS, any certificate (-k), inside the namespace
tcurl() { in_ns curl -sk -m 10 "$@"; }

note "starting monerod (--rpc-ssl enabled, rpc 127.0.0.1:$m_rpc)"
run_in "$work" "${servers[@]}" env NETNS="$NS" "$LAB" start --tls -d "$work/m" -r "$m_rpc" -p "$m_p2p" -t 180 -- --rpc-ssl enabled \
  >"$work/monerod-lab.pid" 2>"$work/monerod-lab.out" 9<&- || { cat "$work/monerod-lab.out" >&2; die "monerod did not come up"; }
monerod_pid=$(<"$work/monerod-lab.pid")

# start_gonerod [EXTRA ARGS]: gonerod with --rpc-ssl enabled, waited for over TLS.
start_gonerod() {
  "${servers[@]}" ip netns exec "$NS" "$work/gonerod" --regtest --fixed-difficulty 1 --offline --no-zmq --data-dir "$work/g" \
    --rpc-bind-port "$g_rpc" --rpc-ssl enabled "$@" </dev/null >"$work/gonerod.log" 2>&1 9<&- &
  gonerod_pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    kill -0 "$gonerod_pid" 2>/dev/null || { tail -20 "$work/gonerod.log" >&2; gonerod_pid=; die "gonerod exited"; }
    tcurl "https://127.0.0.1:$g_rpc/get_height" 2>/dev/null | grep -q '"status": *"OK"' && return 0
    sleep 0.1
  done
  die "gonerod did not answer over TLS within 30 s"
}
note "starting gonerod (--rpc-ssl enabled, rpc 127.0.0.1:$g_rpc)"
start_gonerod

# ---- checks: TLS only, same chain, the benchmarked requests answered ----------------------------------
for port in "$m_rpc" "$g_rpc"; do
  code=$(in_ns curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/get_height" || true)
  [[ $code == 000 ]] || die "port $port answered plain HTTP ($code) with --rpc-ssl enabled"
done
info() { tcurl -H 'Content-Type: application/json' --data '{"jsonrpc":"2.0","id":"0","method":"get_info"}' "https://127.0.0.1:$1/json_rpc"; }
m_info=$(info "$m_rpc") g_info=$(info "$g_rpc")
height=$(jq -r .result.height <<<"$m_info")
top=$(jq -r .result.top_block_hash <<<"$m_info")
[[ $height == "$(jq -r .result.height <<<"$g_info")" && $top == "$(jq -r .result.top_block_hash <<<"$g_info")" ]] \
  || die "the nodes serve different chains"
genesis=$(tcurl -H 'Content-Type: application/json' --data '{"jsonrpc":"2.0","id":"0","method":"getblockheaderbyheight","params":{"height":0}}' \
  "https://127.0.0.1:$m_rpc/json_rpc" | jq -r .result.block_header.hash)
"$work/benchtool" getblocks-body -top "$top" -genesis "$genesis" -height "$height" >"$work/getblocks.body"
for port in "$m_rpc" "$g_rpc"; do
  code=$(tcurl -o "$work/gb.$port" -w '%{http_code}' -H 'Content-Type:' --data-binary "@$work/getblocks.body" "https://127.0.0.1:$port/getblocks.bin")
  [[ $code == 200 ]] || die "/getblocks.bin over TLS on port $port: HTTP $code"
done
cmp -s "$work/gb.$m_rpc" "$work/gb.$g_rpc" || note "note: the /getblocks.bin answers differ in bytes (sizes $(stat -c %s "$work/gb.$m_rpc") and $(stat -c %s "$work/gb.$g_rpc"))"
fp() { in_ns openssl s_client -connect "127.0.0.1:$1" </dev/null 2>/dev/null | openssl x509 -noout -text 2>/dev/null | grep -m1 'Public-Key' | tr -s ' ' || true; }
note "certificates: monerod$(fp "$m_rpc"), gonerod$(fp "$g_rpc")"

# ---- measuring --------------------------------------------------------------------------------------
clk_tck=$(getconf CLK_TCK)

# run_wrk PORT METHOD SECONDS CLOSE OUT (through run_in: Ctrl-C reaches cleanup, which stops wrk)
run_wrk() {
  local url=https://127.0.0.1:$1/json_rpc
  [[ $2 == /* ]] && url=https://127.0.0.1:$1$2
  run_in "$work" "${client[@]}" ip netns exec "$NS" env RPC_CLOSE="$4" wrk -t1 -c"$conns" -d"$3s" --timeout 5s --latency \
    -s "$here/rpc/rpc.lua" "$url" -- "$2" "$height" /dev/null "$work/getblocks.body" >"$5" 2>&1
}

# measure NAME SERVER METHOD CLOSE -> result[NAME|SERVER]="rps p50_us p99_us cpu% errors"
declare -A result=()
measure() {
  local name=$1 server=$2 method=$3 close=$4 port pid out=$work/wrk.out
  case $server in
    gonerod) port=$g_rpc pid=$gonerod_pid ;;
    monerod) port=$m_rpc pid=$monerod_pid ;;
  esac
  ((warmup > 0)) && { run_wrk "$port" "$method" "$warmup" "$close" "$out" || true; }
  local p0 p1
  p0=$(proc_cpu "$pid")
  run_wrk "$port" "$method" "$duration" "$close" "$out" || true
  p1=$(proc_cpu "$pid")
  kill -0 "$pid" 2>/dev/null || die "$server died"
  local line
  line=$(grep '^WRKRESULT ' "$out" || true)
  [[ -n $line ]] || { sed 's/^/    /' "$out" >&2; die "wrk gave no result for $name on $server"; }
  result[$name|$server]=$(awk -v l="$line" -v p0="$p0" -v p1="$p1" -v hz="$clk_tck" 'BEGIN {
    k = split(l, f, " "); for (i = 2; i <= k; i++) { split(f[i], kv, "="); v[kv[1]] = kv[2] }
    secs = v["duration_us"] / 1e6
    printf "%.0f %d %d %.0f %d", v["rps"], v["p50_us"], v["p99_us"], (p1 - p0) / hz / secs * 100,
      v["err_connect"] + v["err_read"] + v["err_write"] + v["err_status"] + v["err_timeout"] }')
  note "$(printf '%-28s %-8s %s' "$name" "$server" "${result[$name|$server]}")"
}

runs=("keep-alive get_info|get_info|0" "keep-alive /getblocks.bin|/getblocks.bin|0" "new conn get_info|get_info|1")
for r in "${runs[@]}"; do
  IFS='|' read -r name method close <<<"$r"
  measure "$name" gonerod "$method" "$close"
  measure "$name" monerod "$method" "$close"
done
# the handshake with the same key: gonerod serving monerod's generated RSA 4096 certificate
stop_gonerod
mdir=$work/m/fake
[[ -f $mdir/rpc_ssl.crt ]] || mdir=$work/m
[[ -f $mdir/rpc_ssl.crt ]] || die "monerod's generated certificate not found in $work/m"
start_gonerod --rpc-ssl-certificate "$mdir/rpc_ssl.crt" --rpc-ssl-private-key "$mdir/rpc_ssl.key"
result["new conn, same cert|monerod"]=${result["new conn get_info|monerod"]}
measure "new conn, same cert" gonerod get_info 1

# ---- report -----------------------------------------------------------------------------------------
echo
echo "RPC over TLS (--rpc-ssl enabled), $conns connections, ${duration} s per run, cpus $cpus_mode, chain height $height"
printf '%-28s %10s %9s %9s %7s %5s | %10s %9s %9s %7s %5s | %6s\n' run "gonerod/s" p50_ms p99_ms cpu% err "monerod/s" p50_ms p99_ms cpu% err ratio
for name in "keep-alive get_info" "keep-alive /getblocks.bin" "new conn get_info" "new conn, same cert"; do
  read -r grps gp50 gp99 gcpu gerr <<<"${result[$name|gonerod]}"
  read -r mrps mp50 mp99 mcpu merr <<<"${result[$name|monerod]}"
  awk -v n="$name" -v g="$grps" -v g50="$gp50" -v g99="$gp99" -v gc="$gcpu" -v ge="$gerr" \
      -v m="$mrps" -v m50="$mp50" -v m99="$mp99" -v mc="$mcpu" -v me="$merr" 'BEGIN {
    printf "%-28s %10d %9.2f %9.2f %7d %5d | %10d %9.2f %9.2f %7d %5d | %5.2fx\n",
      n, g, g50 / 1000, g99 / 1000, gc, ge, m, m50 / 1000, m99 / 1000, mc, me, (m > 0 ? g / m : 0) }'
done
echo "(\"new conn, same cert\": gonerod with monerod's RSA 4096 certificate, against monerod's new-conn run; target: ratio >= 1)"
