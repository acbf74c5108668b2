#!/usr/bin/env bash
# ZMQ RPC throughput: gonerod vs monerod, same chain, same machine, one run, interleaved (issue 30's speed goal:
# get_blocks_fast and get_output_distribution at least 2x monerod's).
#
# Usage: bench/zmqrpc.sh [-d SECONDS] [-c "1 4 16"] [options]
#   -d SECONDS        measured duration of each cell (default 10), after a 2 s warm-up
#   -c "LIST"         REQ connections, each with one request in flight (default "1 4 16")
#   --chain FILE      export file to serve (default: testdata/regtest/blockchain.raw, 300 blocks)
#   --gonerod BIN     benchmark this gonerod binary instead of building ./cmd/gonerod
#   --port-base N     ports N (monerod p2p), N+1 (monerod rpc), N+2 (gonerod rpc), N+3 (gonerod p2p),
#                     N+1001 (monerod ZMQ RPC), N+1002 (gonerod ZMQ RPC), N+1003 (monerod's publisher)
#                     (default 38690)
#   --cpus MODE       split (default): both servers on CPU 0 alone, the load client on CPU 1 alone, as a
#                     light-wallet server on another host; every server gets the same single core.
#                     shared: servers and client share every core
#
# The calls, as a light-wallet server makes them: get_blocks_fast from genesis (pruned; the whole chain in
# one answer on the default chain) and get_output_distribution of amount 0 (cumulative, whole chain).
# What it does: imports the chain into monerod (monero-blockchain-import) and gonerod (gonerod import),
# starts both with their ZMQ RPC on loopback, checks both answer each call with a "result" of the same
# size, then for each call and connection count runs bench/zmqload (its own process) against gonerod
# and then monerod. Prints one table: calls/s, p50/p99 latency, server CPU per call, and the ratio.
#
# Network: monerod, gonerod and the client run only inside the network namespace $GONERO_NETNS (default
# gonero-bench), which has loopback alone. Needs root, monerod, monero-blockchain-import, go (unless
# --gonerod). Every process started here is stopped on exit, error or Ctrl-C.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-bench}

duration=10 conns_list="1 4 16" port_base=38690 cpus_mode=split
chain_file=$root/testdata/regtest/blockchain.raw
gonerod_bin=
while (($#)); do
  case "$1" in
    -d) duration=${2:?-d needs seconds}; shift 2 ;;
    -c) conns_list=${2:?-c needs a list}; shift 2 ;;
    --chain) chain_file=${2:?}; shift 2 ;;
    --gonerod) gonerod_bin=${2:?}; shift 2 ;;
    --port-base) port_base=${2:?}; shift 2 ;;
    --cpus) cpus_mode=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) unknown_arg "$1" ;;
  esac
done
[[ $duration =~ ^[1-9][0-9]*$ ]] || die "-d must be a positive whole number of seconds"
[[ $cpus_mode == shared || $cpus_mode == split ]] || die "--cpus must be shared or split"
check_port_base "$port_base"
read -r -a conns <<<"$conns_list"
((${#conns[@]} > 0)) || die "-c: no connection counts"
for c in "${conns[@]}"; do [[ $c =~ ^[1-9][0-9]*$ ]] && ((c <= 1000)) || die "-c: '$c' is not a connection count (1..1000)"; done
[[ -f $chain_file ]] || die "chain file $chain_file not found"
chain_file=$(cd "$(dirname "$chain_file")" && pwd)/$(basename "$chain_file")

m_p2p=$port_base m_rpc=$((port_base + 1)) g_rpc=$((port_base + 2)) g_p2p=$((port_base + 3))
m_zmq=$((m_rpc + 1000)) g_zmq=$((g_rpc + 1000)) m_pub=$((port_base + 1003))

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
need_tools "monerod and its tools: scripts/monero-reference.sh" ip monerod monero-blockchain-import ss curl jq
[[ -n $gonerod_bin ]] || command -v go >/dev/null || die "go not found (or pass --gonerod BIN)"
command -v go >/dev/null || die "go not found (it builds bench/zmqload)"
ensure_ns
ns_only_lo || die "namespace $NS has interfaces besides lo: refusing to run nodes there"
for p in "$m_p2p" "$m_rpc" "$g_rpc" "$g_p2p" "$m_zmq" "$g_zmq" "$m_pub"; do
  port_busy "$p" && die "port $p is already in use in namespace $NS (try --port-base)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gonero-zmqbench.XXXXXX")
gonerod_to "$work/gonerod"
go_build "$work/zmqload" ./bench/zmqload

servers=() client=()
if [[ $cpus_mode == split ]]; then
  servers=(taskset -c 0) client=(taskset -c 1)
fi

note "importing $(basename "$chain_file") into monerod and gonerod"
run_in "$work" ip netns exec "$NS" monero-blockchain-import --regtest --fixed-difficulty 1 --data-dir "$work/m" \
    --input-file "$chain_file" >"$work/monero-import.out" 2>&1 \
  || { tail -n 20 "$work/monero-import.out" >&2; die "monero-blockchain-import failed"; }
run_in "$work" "$gonerod_bin" import --regtest --fixed-difficulty 1 --data-dir "$work/g" --input-file "$chain_file" \
    >"$work/gonerod-import.out" 2>&1 \
  || { tail -n 20 "$work/gonerod-import.out" >&2; die "gonerod import failed"; }

note "starting monerod (ZMQ RPC 127.0.0.1:$m_zmq) and gonerod (ZMQ RPC 127.0.0.1:$g_zmq) in namespace $NS"
run_in "$work" "${servers[@]}" env NETNS="$NS" "$LAB" start -d "$work/m" -r "$m_rpc" -p "$m_p2p" -t 120 \
    --zmq-pub "tcp://127.0.0.1:$m_pub" --zmq-rpc-port "$m_zmq" >"$work/monerod-lab.pid" 2>"$work/monerod-lab.out" \
  || { cat "$work/monerod-lab.out" >&2; die "monerod did not come up"; }
monerod_pid=$(<"$work/monerod-lab.pid")
"${servers[@]}" ip netns exec "$NS" "$gonerod_bin" --regtest --fixed-difficulty 1 --offline --data-dir "$work/g" \
  --rpc-bind-port "$g_rpc" --p2p-bind-port "$g_p2p" --zmq-rpc-bind-port "$g_zmq" </dev/null >"$work/gonerod.log" 2>&1 &
gonerod_pid=$!

genesis=$(in_ns curl -s -m 5 "http://127.0.0.1:$m_rpc/json_rpc" \
  -d '{"jsonrpc":"2.0","id":"0","method":"getblockheaderbyheight","params":{"height":0}}' | jq -r .result.block_header.hash)
[[ $genesis =~ ^[0-9a-f]{64}$ ]] || die "monerod gave no genesis hash"
declare -A reqs=(
  [get_blocks_fast]='{"jsonrpc":"2.0","id":1,"method":"get_blocks_fast","params":{"block_ids":["'$genesis'"],"start_height":0,"prune":true}}'
  [get_output_distribution]='{"jsonrpc":"2.0","id":1,"method":"get_output_distribution","params":{"amounts":[0],"from_height":0,"to_height":0,"cumulative":true}}'
)
calls=(get_blocks_fast get_output_distribution)

# load ADDR CALL CONNS SECONDS WARMUP -> zmqload's key=value line
load() { in_ns "${client[@]}" "$work/zmqload" -addr "$1" -req "${reqs[$2]}" -c "$3" -d "${4}s" -w "${5}s"; }

# Both servers up and answering every call alike in size (the values are compared byte for byte in
# zmqrpc's TestAgainstMonerod; here a size check catches a server answering something else).
for ((i = 0; i < 300; i++)); do
  load "127.0.0.1:$g_zmq" get_blocks_fast 1 1 0 >/dev/null 2>&1 && load "127.0.0.1:$m_zmq" get_blocks_fast 1 1 0 >/dev/null 2>&1 && break
  kill -0 "$gonerod_pid" 2>/dev/null || { tail -n 20 "$work/gonerod.log" >&2; gonerod_pid=; die "gonerod died"; }
  sleep 0.2
done
for c in "${calls[@]}"; do
  gs=$(load "127.0.0.1:$g_zmq" "$c" 1 1 0 | sed 's/.*answer_bytes=//') || die "gonerod: $c failed"
  ms=$(load "127.0.0.1:$m_zmq" "$c" 1 1 0 | sed 's/.*answer_bytes=//') || die "monerod: $c failed"
  [[ $gs == "$ms" ]] || die "$c: gonerod answers $gs bytes, monerod $ms"
done

field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }
hz=$(getconf CLK_TCK)
rows=() fails=0
for c in "${calls[@]}"; do
  for n in "${conns[@]}"; do
    declare -A rate=() p50=() p99=() cpu=()
    for who in gonerod monerod; do
      if [[ $who == gonerod ]]; then addr=127.0.0.1:$g_zmq pid=$gonerod_pid; else addr=127.0.0.1:$m_zmq pid=$monerod_pid; fi
      c0=$(proc_cpu "$pid")
      out=$(load "$addr" "$c" "$n" "$duration" 2) || die "$who: $c with $n connections failed"
      c1=$(proc_cpu "$pid")
      rate[$who]=$(field calls_per_s "$out") p50[$who]=$(field p50_us "$out") p99[$who]=$(field p99_us "$out")
      total=$(field calls "$out")
      # server CPU per call in µs (the warm-up's calls are in the CPU time too: an upper bound)
      cpu[$who]=$(awk -v d="$((c1 - c0))" -v hz="$hz" -v n="$total" -v w=2 -v s="$duration" \
        'BEGIN { printf "%.1f", d / hz * 1e6 / (n * (s + w) / s) }')
    done
    ratio=$(awk -v g="${rate[gonerod]}" -v m="${rate[monerod]}" 'BEGIN { printf "%.2f", g / m }')
    verdict=ok
    awk -v r="$ratio" 'BEGIN { exit !(r < 2) }' && { verdict="below 2x"; fails=$((fails + 1)); }
    rows+=("| $c | $n | ${rate[gonerod]} | ${rate[monerod]} | **${ratio}x** | ${p50[gonerod]} / ${p99[gonerod]} | ${p50[monerod]} / ${p99[monerod]} | ${cpu[gonerod]} / ${cpu[monerod]} | $verdict |")
    unset rate p50 p99 cpu
  done
done

echo "gonerod vs monerod ZMQ RPC throughput ($(date -u '+%Y-%m-%d %H:%M UTC'), --cpus $cpus_mode, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "  gonerod: $("$gonerod_bin" version 2>/dev/null) (tree $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?));  monerod: $(monerod --version 2>/dev/null | sed 's/^Monero //')"
echo "  chain: $(basename "$chain_file"); ${duration} s measured per cell after 2 s of warm-up, gonerod then monerod"
echo
echo "| call | conns | gonerod calls/s | monerod calls/s | ratio | gonerod p50/p99 µs | monerod p50/p99 µs | server CPU µs/call g / m | target 2x |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
((fails == 0)) || { note "$fails cell(s) below 2x monerod"; exit 1; }
