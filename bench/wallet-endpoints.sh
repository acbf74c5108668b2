#!/usr/bin/env bash
# Wallet-sync endpoint throughput: gonerod vs monerod, same chain, same machine, one run.
#
# Usage: bench/wallet-endpoints.sh [-d SECONDS] [-c "1 8"] [--chain DIR] [--gonerod BIN] [--port-base N]
#   -d SECONDS     measured duration of each run (default 10); a 2 s warm-up precedes it
#   -c "LIST"      concurrent keep-alive clients (default "1 8")
#   --chain DIR    a chain built by shared/tools/build-heavy-chain: DIR/blockchain.raw and monerod's
#                  stopped data dir DIR/node1 (default /tmp/heavy/h2000: 2,000 varied transactions)
#   --gonerod BIN  benchmark this gonerod binary instead of building ./cmd/gonerod
#   --port-base N  ports N (monerod p2p), N+1 (monerod rpc), N+2 (gonerod rpc) (default 38690)
#
# What it does: copies DIR/node1 for monerod and imports DIR/blockchain.raw into gonerod, starts both,
# checks that they serve the same chain and give byte-identical answers to the benchmarked requests,
# then for each endpoint and client count runs bench/wsload (a Go load generator: one keep-alive
# connection per client, realistic wallet requests) against gonerod and then monerod:
#   getblocks     /getblocks.bin from genesis, prune true (the first refresh of a restored wallet)
#   getouts       /get_outs.bin of 150 random amount-0 outputs, get_txid false (ring members)
#   distribution  /get_output_distribution.bin, amount 0, compress true (decoy selection)
# and prints req/s of both and the ratio gonerod/monerod (target: >= 2x for each).
#
# Network: monerod, gonerod and wsload run only inside the network namespace $GONERO_NETNS (default
# gonero-wbench; created with loopback alone if missing, and then deleted at the end). Needs root,
# monerod, curl, jq, go (unless --gonerod). Every process started here is stopped on exit, error or
# Ctrl-C. The servers and the load generator share this machine's cores.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
shared=${GONERO_SHARED:-$root/../shared}
NS=${GONERO_NETNS:-gonero-wbench}
LAB=$shared/tools/monerod-lab

duration=10 warmup=2 conns_list="1 8" chain_dir=/tmp/heavy/h2000 gonerod_bin= port_base=38690
kinds=(getblocks getouts distribution)

die()  { echo "wallet-endpoints.sh: error: $*" >&2; exit 1; }
note() { echo "wallet-endpoints.sh: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

while (($#)); do
  case "$1" in
    -d) duration=${2:?-d needs seconds}; shift 2 ;;
    -c) conns_list=${2:?-c needs a list}; shift 2 ;;
    --chain) chain_dir=${2:?}; shift 2 ;;
    --gonerod) gonerod_bin=${2:?}; shift 2 ;;
    --port-base) port_base=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "wallet-endpoints.sh: unknown argument: $1" >&2; usage ;;
  esac
done
[[ $duration =~ ^[1-9][0-9]*$ ]] && ((duration <= 120)) || die "-d must be 1..120 seconds"
[[ $port_base =~ ^[0-9]+$ ]] && ((port_base >= 1024 && port_base <= 65530)) || die "--port-base must be 1024..65530"
read -r -a conns <<<"$conns_list"
for c in "${conns[@]}"; do [[ $c =~ ^[1-9][0-9]*$ ]] && ((c <= 64)) || die "-c: '$c' is not a client count (1..64)"; done
[[ -f $chain_dir/blockchain.raw && -d $chain_dir/node1 ]] || die "$chain_dir needs blockchain.raw and node1/ (shared/tools/build-heavy-chain)"
chain_dir=$(cd "$chain_dir" && pwd)
m_p2p=$port_base m_rpc=$((port_base + 1)) g_rpc=$((port_base + 2))

work= gonerod_pid= monerod_started=0 load_pid= made_ns=0
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [[ -n $load_pid ]] && kill -TERM "$load_pid" 2>/dev/null && wait "$load_pid" 2>/dev/null
  if [[ -n $gonerod_pid ]]; then
    kill -TERM "$gonerod_pid" 2>/dev/null
    for _ in $(seq 150); do kill -0 "$gonerod_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$gonerod_pid" 2>/dev/null
    wait "$gonerod_pid" 2>/dev/null
  fi
  ((monerod_started)) && NETNS=$NS "$LAB" stop "$work/m" 30 >/dev/null 2>&1
  [[ -n $work ]] && rm -rf "$work"
  ((made_ns)) && ip netns del "$NS" 2>/dev/null
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

in_ns() { ip netns exec "$NS" "$@"; }

(($(id -u) == 0)) || die "needs root (network namespace)"
for t in ip monerod curl jq; do command -v "$t" >/dev/null || die "'$t' not found"; done
[[ -n $gonerod_bin ]] || command -v go >/dev/null || die "go not found (or pass --gonerod BIN)"
[[ -x $LAB ]] || die "monerod-lab not found at $LAB (set GONERO_SHARED)"
if ! ip netns list | awk '{print $1}' | grep -qx "$NS"; then
  ip netns add "$NS" || die "cannot create namespace $NS"
  made_ns=1
fi
in_ns ip link set lo up

work=$(mktemp -d /tmp/gonero-wbench.XXXXXX)
note "building wsload${gonerod_bin:+ (gonerod given)}${gonerod_bin:- and gonerod} from $root"
(cd "$root" && go build -o "$work/wsload" ./bench/wsload) || die "go build ./bench/wsload failed"
if [[ -z $gonerod_bin ]]; then
  (cd "$root" && go build -o "$work/gonerod" ./cmd/gonerod) || die "go build ./cmd/gonerod failed"
  gonerod_bin=$work/gonerod
fi

note "importing $(basename "$chain_dir")/blockchain.raw into gonerod"
(cd "$work" && "$gonerod_bin" import --regtest --fixed-difficulty 1 --data-dir "$work/g" \
  --input-file "$chain_dir/blockchain.raw" >"$work/gonerod-import.out" 2>&1) \
  || { tail -n 20 "$work/gonerod-import.out" >&2; die "gonerod import failed"; }
mkdir -p "$work/m" && cp -a "$chain_dir/node1/." "$work/m/" && rm -f "$work/m/monerod.pid"

note "starting monerod (rpc 127.0.0.1:$m_rpc) and gonerod (rpc 127.0.0.1:$g_rpc) in namespace $NS"
monerod_started=1
(cd "$work" && NETNS=$NS "$LAB" start -d "$work/m" -r "$m_rpc" -p "$m_p2p" -t 120 >"$work/monerod.pid.out" 2>"$work/monerod-lab.out") \
  || { cat "$work/monerod-lab.out" >&2; die "monerod did not come up"; }
monerod_pid=$(<"$work/monerod.pid.out")
ip netns exec "$NS" "$gonerod_bin" --regtest --fixed-difficulty 1 --data-dir "$work/g" --rpc-bind-port "$g_rpc" \
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

declare -A rps=()
measure() { # SERVER KIND CONNS
  local port=$m_rpc out
  [[ $1 == gonerod ]] && port=$g_rpc
  in_ns "$work/wsload" -kind "$2" -c "$3" -d "${warmup}s" -url "http://127.0.0.1:$port" "${load_args[@]}" >/dev/null 2>&1 || true
  ip netns exec "$NS" "$work/wsload" -kind "$2" -c "$3" -d "${duration}s" -url "http://127.0.0.1:$port" "${load_args[@]}" >"$work/load.out" 2>&1 &
  load_pid=$!
  wait "$load_pid" || true
  load_pid=
  out=$(grep '^WSRESULT' "$work/load.out" || true)
  [[ -n $out ]] || { cat "$work/load.out" >&2; die "wsload failed on $1 $2"; }
  grep -q ' errors=0 ' <<<"$out" || { note "errors on $1 $2 c=$3: $out"; cat "$work/load.out" >&2; }
  rps[$1|$2|$3]=$(sed -n 's/.* rps=\([0-9.]*\).*/\1/p' <<<"$out")
  kill -0 "$gonerod_pid" 2>/dev/null || { tail -n 30 "$work/gonerod.log" >&2; gonerod_pid=; die "gonerod died"; }
  kill -0 "$monerod_pid" 2>/dev/null || { tail -n 20 "$work/m/monerod.log" >&2; die "monerod died"; }
}
for k in "${kinds[@]}"; do
  for c in "${conns[@]}"; do
    note "  $k, $c client(s)"
    measure gonerod "$k" "$c"
    measure monerod "$k" "$c"
  done
done

echo "gonerod vs monerod wallet-sync endpoints ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "  chain: $chain_dir, $height blocks, $rct RingCT outputs; machine: $(nproc) cores shared by both servers and wsload"
echo "  monerod: $(monerod --version 2>/dev/null | sed 's/^Monero //'); gonerod: tree $(cd "$root" && git rev-parse --short HEAD)"
echo "  each cell: ${warmup} s warm-up, ${duration} s measured, one keep-alive connection per client"
printf "%-14s %5s | %11s %11s | %7s %s\n" endpoint conns "gonerod/s" "monerod/s" "g/m" target
printf '%.0s-' {1..68}; echo
for k in "${kinds[@]}"; do
  for c in "${conns[@]}"; do
    awk -v k="$k" -v c="$c" -v g="${rps[gonerod|$k|$c]}" -v m="${rps[monerod|$k|$c]}" 'BEGIN {
      r = (m > 0) ? g / m : 0
      printf "%-14s %5d | %11.1f %11.1f | %6.2fx %s\n", k, c, g, m, r, (r >= 2) ? ">=2x met" : "NOT MET" }'
  done
done
