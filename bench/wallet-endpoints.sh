#!/usr/bin/env bash
# Wallet-sync endpoint throughput: gonerod vs monerod, same chain, same machine, one run.
#
# Usage: bench/wallet-endpoints.sh [-d SECONDS] [-c "1 8"] [--chain DIR] [--gonerod BIN] [--port-base N]
#   -d SECONDS     measured duration of each run (default 10); a 2 s warm-up precedes it
#   -c "LIST"      concurrent keep-alive clients (default "1 8")
#   --chain DIR    a chain built by bench/lab.sh buildheavy: DIR/blockchain.raw and monerod's
#                  stopped data dir DIR/node1 (default /tmp/heavy/h2000: 2,000 varied transactions)
#   --gonerod BIN  benchmark this gonerod binary instead of building ./cmd/gonerod
#   --port-base N  ports N (monerod p2p), N+1 (monerod rpc), N+2 (gonerod rpc) (default 38690)
#   --cpus MODE    split (default): each server alone on CPU 0, wrk alone on CPU 1, as wallets on
#                  another host (the load generator's CPU is not taken from the server it measures;
#                  both servers get the same one core); shared: all share every core
#
# What it does: copies DIR/node1 for monerod and imports DIR/blockchain.raw into gonerod, starts both,
# checks that they serve the same chain and give byte-identical answers to the benchmarked requests,
# then for each endpoint and client count runs wrk (one keep-alive connection per client) against
# gonerod and then monerod, rotating over 256 realistic wallet requests that bench/wsload writes:
#   getblocks     /getblocks.bin from genesis, prune true (the first refresh of a restored wallet)
#   getouts       /get_outs.bin of 150 random amount-0 outputs, get_txid false (ring members)
#   distribution  /get_output_distribution.bin, amount 0, compress true (decoy selection)
# and prints req/s and p50/p99 latency of both and the ratio gonerod/monerod (target: >= 2x for each).
# It also measures the machine's ceiling for each cell: bench/rpc/benchtool's bare fasthttp server
# answering a fixed body of the size of gonerod's answer, under the same load. No server can beat
# it; where it is below 2x monerod (one client and a small answer: the loopback round trip then
# costs more than monerod's work), 2x cannot be reached on this machine.
#
# Network: monerod, gonerod, wsload and wrk run only inside the network namespace $GONERO_NETNS (default
# gonero-wbench; created with loopback alone if missing, and then deleted at the end). Needs root,
# monerod, curl, jq, wrk, go (unless --gonerod). Every process started here is stopped on exit, error or
# Ctrl-C. The servers and the load generator share this machine's cores.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-wbench}

duration=10 warmup=2 conns_list="1 8" chain_dir=/tmp/heavy/h2000 gonerod_bin= port_base=38690 cpus_mode=split
kinds=(getblocks getouts distribution)

while (($#)); do
  case "$1" in
    -d) duration=${2:?-d needs seconds}; shift 2 ;;
    -c) conns_list=${2:?-c needs a list}; shift 2 ;;
    --chain) chain_dir=${2:?}; shift 2 ;;
    --gonerod) gonerod_bin=${2:?}; shift 2 ;;
    --port-base) port_base=${2:?}; shift 2 ;;
    --cpus) cpus_mode=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) unknown_arg "$1" ;;
  esac
done
[[ $duration =~ ^[1-9][0-9]*$ ]] && ((duration <= 120)) || die "-d must be 1..120 seconds"
check_port_base "$port_base"
[[ $cpus_mode == split || $cpus_mode == shared ]] || die "--cpus must be split or shared"
server_pin=() client_pin=()
if [[ $cpus_mode == split ]]; then
  (($(nproc) >= 2)) || die "--cpus split needs 2 CPUs"
  server_pin=(taskset -c 0) client_pin=(taskset -c 1) # inherited: bench/lab.sh's monerod is pinned too
fi
read -r -a conns <<<"$conns_list"
for c in "${conns[@]}"; do [[ $c =~ ^[1-9][0-9]*$ ]] && ((c <= 64)) || die "-c: '$c' is not a client count (1..64)"; done
[[ -f $chain_dir/blockchain.raw && -d $chain_dir/node1 ]] || die "$chain_dir needs blockchain.raw and node1/ (bench/lab.sh buildheavy DIR)"
chain_dir=$(cd "$chain_dir" && pwd)
m_p2p=$port_base m_rpc=$((port_base + 1)) g_rpc=$((port_base + 2)) c_rpc=$((port_base + 3))

work= gonerod_pid= ceiling_pid=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [[ -n $fg_pid ]] && kill -TERM "$fg_pid" 2>/dev/null && wait "$fg_pid" 2>/dev/null
  [[ -n $ceiling_pid ]] && kill -TERM "$ceiling_pid" 2>/dev/null && wait "$ceiling_pid" 2>/dev/null
  stop_gonerod
  stop_monerod
  [[ -n $work ]] && rm -rf "$work"
  ((made_ns)) && ip netns del "$NS" 2>/dev/null
  exit "$rc"
}
on_exit cleanup

need_root
need_tools "" ip monerod curl jq wrk xxd
[[ -n $gonerod_bin ]] || command -v go >/dev/null || die "go not found (or pass --gonerod BIN)"
ensure_ns "cannot create namespace $NS" # deleted again at exit (made_ns)

work=$(mktemp -d /tmp/gonero-wbench.XXXXXX)
note "building wsload${gonerod_bin:+ (gonerod given)}${gonerod_bin:- and gonerod} from $root"
go_build "$work/wsload" ./bench/wsload
go_build "$work/benchtool" ./bench/rpc/benchtool
gonerod_to "$work/gonerod"

note "importing $(basename "$chain_dir")/blockchain.raw into gonerod"
run_in "$work" "$gonerod_bin" import --regtest --fixed-difficulty 1 --data-dir "$work/g" \
  --input-file "$chain_dir/blockchain.raw" >"$work/gonerod-import.out" 2>&1 \
  || { tail -n 20 "$work/gonerod-import.out" >&2; die "gonerod import failed"; }
mkdir -p "$work/m" && cp -a "$chain_dir/node1/." "$work/m/" && rm -f "$work/m/monerod.pid"

note "starting monerod (rpc 127.0.0.1:$m_rpc) and gonerod (rpc 127.0.0.1:$g_rpc) in namespace $NS"
run_in "$work" env NETNS="$NS" "${server_pin[@]}" "$LAB" start -d "$work/m" -r "$m_rpc" -p "$m_p2p" -t 120 >"$work/monerod.pid.out" 2>"$work/monerod-lab.out" \
  || { cat "$work/monerod-lab.out" >&2; die "monerod did not come up"; }
monerod_pid=$(<"$work/monerod.pid.out")
"${server_pin[@]}" ip netns exec "$NS" "$gonerod_bin" --regtest --fixed-difficulty 1 --no-zmq --data-dir "$work/g" --rpc-bind-port "$g_rpc" \
  </dev/null >"$work/gonerod.log" 2>&1 &
gonerod_pid=$! # (ip netns exec execs gonerod: this is its pid; a shell function run with & would be a subshell)
for i in $(seq 300); do
  kill -0 "$gonerod_pid" 2>/dev/null || { tail -n 20 "$work/gonerod.log" >&2; gonerod_pid=; die "gonerod exited"; }
  in_ns curl -s -m 2 "http://127.0.0.1:$g_rpc/get_height" 2>/dev/null | grep -q '"status": *"OK"' && break
  ((i == 300)) && die "gonerod did not answer within 30 s"
  sleep 0.1
done

rpc() { in_ns curl -s -m 10 -H 'Content-Type: application/json' --data "$2" "http://127.0.0.1:$1/json_rpc"; }
mh=$(rpc "$m_rpc" '{"jsonrpc":"2.0","id":"0","method":"get_info"}' | jq -r '.result.top_block_hash')
gh=$(rpc "$g_rpc" '{"jsonrpc":"2.0","id":"0","method":"get_info"}' | jq -r '.result.top_block_hash')
height=$(rpc "$m_rpc" '{"jsonrpc":"2.0","id":"0","method":"get_info"}' | jq -r '.result.height')
[[ $mh == "$gh" && -n $mh && $mh != null ]] || die "the nodes serve different chains (tops $mh and $gh)"
genesis=$(rpc "$m_rpc" '{"jsonrpc":"2.0","id":"0","method":"getblockheaderbyheight","params":{"height":0}}' | jq -r '.result.block_header.hash')
rct=$(rpc "$m_rpc" '{"jsonrpc":"2.0","id":"0","method":"get_output_histogram","params":{"amounts":[0]}}' | jq -r '.result.histogram[0].total_instances')
[[ $genesis =~ ^[0-9a-f]{64}$ && $rct =~ ^[0-9]+$ ]] || die "cannot read the genesis id ($genesis) or the RingCT output count ($rct)"

load_args=(-genesis "$genesis" -rct-outputs "$rct")
for k in "${kinds[@]}"; do
  in_ns "$work/wsload" -check -kind "$k" -url "http://127.0.0.1:$g_rpc" -url2 "http://127.0.0.1:$m_rpc" "${load_args[@]}" >/dev/null \
    || die "gonerod and monerod answer $k differently"
done
note "both nodes serve the same $height-block chain ($rct RingCT outputs) and answer all three requests byte for byte alike"

# The load: wrk (keep-alive, one connection per client) rotating over 256 request bodies per endpoint
# that wsload writes, so that the load generator spends as little CPU as possible per request.
for k in "${kinds[@]}"; do
  "$work/wsload" -dump 256 -kind "$k" "${load_args[@]}" >"$work/$k.hex" || die "wsload -dump $k failed"
done
declare -A path=([getblocks]=/getblocks.bin [getouts]=/get_outs.bin [distribution]=/get_output_distribution.bin)

declare -A rps=() p50=() p99=()
run_wrk() { # PORT KIND CONNS SECONDS OUT
  local threads=2
  (($3 == 1)) || [[ $cpus_mode == split ]] && threads=1
  run_in "$work" "${client_pin[@]}" ip netns exec "$NS" wrk -t"$threads" -c"$3" -d"$4s" --timeout 10s --latency \
    -s "$here/rpc/rpc.lua" "http://127.0.0.1:$1${path[$2]}" -- "${path[$2]}" 0 - "$work/$2.hex" >"$5" 2>&1 || true
}
measure() { # SERVER KIND CONNS
  local port=$m_rpc out
  [[ $1 == gonerod ]] && port=$g_rpc
  [[ $1 == ceiling ]] && port=$c_rpc
  run_wrk "$port" "$2" "$3" "$warmup" "$work/warmup.out"
  run_wrk "$port" "$2" "$3" "$duration" "$work/load.out"
  out=$(grep '^WRKRESULT' "$work/load.out" || true)
  [[ -n $out ]] || { cat "$work/load.out" >&2; die "wrk failed on $1 $2"; }
  grep -q ' err_connect=0 err_read=0 err_write=0 err_status=0 err_timeout=0' <<<"$out" || note "errors on $1 $2 c=$3: $out"
  rps[$1|$2|$3]=$(sed -n 's/.* rps=\([0-9.]*\).*/\1/p' <<<"$out")
  p50[$1|$2|$3]=$(sed -n 's/.* p50_us=\([0-9]*\).*/\1/p' <<<"$out")
  p99[$1|$2|$3]=$(sed -n 's/.* p99_us=\([0-9]*\).*/\1/p' <<<"$out")
  kill -0 "$gonerod_pid" 2>/dev/null || { tail -n 30 "$work/gonerod.log" >&2; gonerod_pid=; die "gonerod died"; }
  kill -0 "$monerod_pid" 2>/dev/null || { tail -n 20 "$work/m/monerod.log" >&2; die "monerod died"; }
}
# start_ceiling KIND: the bare server, answering a body of the size of gonerod's answer to KIND's
# first request
start_ceiling() {
  local size
  head -1 "$work/$1.hex" | xxd -r -p >"$work/$1.first"
  size=$(in_ns curl -s -m 30 --data-binary "@$work/$1.first" "http://127.0.0.1:$g_rpc${path[$1]}" | wc -c)
  ((size > 0)) || die "no answer from gonerod to $1"
  "${server_pin[@]}" ip netns exec "$NS" "$work/benchtool" ceiling -addr "127.0.0.1:$c_rpc" -size "$size" \
    </dev/null >"$work/ceiling.log" 2>&1 &
  ceiling_pid=$!
  for _ in $(seq 100); do
    in_ns curl -s -m 1 -o /dev/null "http://127.0.0.1:$c_rpc/" && return 0
    sleep 0.1
  done
  die "the ceiling server did not come up: $(tail -5 "$work/ceiling.log")"
}
stop_ceiling() { kill -TERM "$ceiling_pid" 2>/dev/null; wait "$ceiling_pid" 2>/dev/null; ceiling_pid=; }
for k in "${kinds[@]}"; do
  start_ceiling "$k"
  for c in "${conns[@]}"; do
    note "  $k, $c client(s)"
    measure gonerod "$k" "$c"
    measure monerod "$k" "$c"
    measure ceiling "$k" "$c"
  done
  stop_ceiling
done

echo "gonerod vs monerod wallet-sync endpoints ($(date -u '+%Y-%m-%d %H:%M UTC'))"
if [[ $cpus_mode == split ]]; then
  echo "  chain: $chain_dir, $height blocks, $rct RingCT outputs; machine: $(nproc) cores; each server alone on CPU 0, wrk on CPU 1"
else
  echo "  chain: $chain_dir, $height blocks, $rct RingCT outputs; machine: $(nproc) cores shared by both servers and wrk"
fi
echo "  monerod: $(monerod --version 2>/dev/null | sed 's/^Monero //'); gonerod: tree $(cd "$root" && git rev-parse --short HEAD)"
echo "  each cell: ${warmup} s warm-up, ${duration} s measured, wrk with one keep-alive connection per client;"
echo "  latency in microseconds"
printf "%-14s %5s | %10s %7s %7s | %10s %7s %7s | %7s %-8s | %10s %s\n" endpoint conns "gonerod/s" p50 p99 "monerod/s" p50 p99 "g/m" target "ceiling/s" "ceiling/m"
printf '%.0s-' {1..120}; echo
for k in "${kinds[@]}"; do
  for c in "${conns[@]}"; do
    awk -v k="$k" -v c="$c" -v g="${rps[gonerod|$k|$c]}" -v m="${rps[monerod|$k|$c]}" -v ce="${rps[ceiling|$k|$c]}" \
        -v g50="${p50[gonerod|$k|$c]}" -v g99="${p99[gonerod|$k|$c]}" -v m50="${p50[monerod|$k|$c]}" -v m99="${p99[monerod|$k|$c]}" 'BEGIN {
      r = (m > 0) ? g / m : 0; cr = (m > 0) ? ce / m : 0
      printf "%-14s %5d | %10.1f %7d %7d | %10.1f %7d %7d | %6.2fx %-8s | %10.1f %8.2fx\n", k, c, g, g50, g99, m, m50, m99, r, (r >= 2) ? ">=2x met" : "NOT MET", ce, cr }'
  done
done
echo "  ceiling: a bare fasthttp server answering a fixed body of the size of gonerod's answer (bench/rpc/benchtool);"
echo "  ceiling/m below 2x means no server can reach 2x monerod in that cell on this machine"
