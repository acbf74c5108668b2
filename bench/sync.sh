#!/usr/bin/env bash
# P2P sync speed, in one run on the same chain: how long a node with an empty chain takes to sync it over P2P
# from monerods that hold it — gonerod (--add-exclusive-node) against a second monerod doing the same, from one
# peer and, with --peers N, from N peers at once (monerods on copies of one data directory) — and how long a
# fresh monerod takes to sync it from gonerod (is gonerod a fast enough source?).
#
# Usage: bench/sync.sh [--blocks N | --chain DIR] [--peers N] [--delay MS] [-n RUNS] [-- GONEROD_ARGS...]
#   --blocks N  the chain: N blocks mined by monerod at fixed difficulty 1 (default 1000; coinbase only)
#   --chain DIR a monerod regtest data directory to serve instead (e.g. /tmp/heavy/h2000/node1 for a chain with
#               transactions); it is copied, never modified
#   --peers N   also sync from N monerods at once (default 1: one peer only)
#   --delay MS  reach every source through bench/latencyproxy, which delays each chunk by MS milliseconds each way
#               (a peer across a network rather than on loopback; netem is not needed)
#   -n RUNS     repetitions per node (default 3), interleaved; the median wall time is reported, and the syncing
#               node's CPU time (user + system, from /proc when it reaches the height)
#   --before BIN  also sync with this gonerod binary (e.g. built from main) in the same rounds: before/after ratios
#   GONEROD_ARGS  extra gonerod flags (e.g. --block-sync-size 5 --prep-blocks-threads 2)
# monerod also verifies what gonerod does not (none here for a coinbase-only chain), and both sides run on the
# same cores. Needs root and the monero package; everything runs in a loopback-only namespace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
blocks=1000 runs=3 peers=1 chain="" delay=0 before=""
gargs=()
while (($#)); do
  case "$1" in
    --blocks) blocks=$2; shift 2 ;;
    --chain) chain=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    -n) runs=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    --) shift; gargs=("$@"); break ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
NS=${GONERO_NETNS:-gonero-bench}
ensure_ns
lab() { NETNS=$NS "$LAB" "$@"; }
work=$(mktemp -d /tmp/gonero-sync-bench.XXXXXX)
pids=() procs=()
cleanup() {
  for p in "${procs[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do lab stop "$p" >/dev/null 2>&1 || kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && go build -o "$work/gonerod" ./cmd/gonerod && go build -o "$work/latencyproxy" ./bench/latencyproxy)

if [[ -n $chain ]]; then
  cp -a "$chain/." "$work/src"; rm -f "$work/src/monerod.pid"
else
  echo "mining a $blocks-block chain with monerod..." >&2
  src=$(lab start --fresh -d "$work/src" -r 38581 -p 38580)
  addr=43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS
  left=$blocks
  while ((left > 0)); do
    step=$((left > 500 ? 500 : left))
    lab rpc 38581 generateblocks "{\"amount_of_blocks\":$step,\"wallet_address\":\"$addr\"}" >/dev/null
    left=$((left - step))
  done
  lab stop "$src" >/dev/null 2>&1
fi
# The sources: monerods on copies of the chain, P2P ports 38580, 38590, ...; each takes several incoming
# connections from 127.0.0.1 (monerod's default is one per IP).
nodes=()
for ((i = 0; i < peers; i++)); do
  d="$work/src$i"; cp -a "$work/src/." "$d"
  p=$(lab start -d "$d" -r $((38581 + 10 * i)) -p $((38580 + 10 * i)) --online -- --max-connections-per-ip 8); pids+=("$p")
  if ((delay > 0)); then
    ip netns exec "$NS" "$work/latencyproxy" -listen "127.0.0.1:$((38585 + 10 * i))" -target "127.0.0.1:$((38580 + 10 * i))" \
      -delay "${delay}ms" & procs+=("$!")
    nodes+=("127.0.0.1:$((38585 + 10 * i))")
  else
    nodes+=("127.0.0.1:$((38580 + 10 * i))")
  fi
done
height() { ip netns exec "$NS" curl -s -m 2 "127.0.0.1:$1/get_height" | python3 -c 'import json,sys; print(json.load(sys.stdin)["height"])' 2>/dev/null || echo 0; }
want=$(height 38581)

# wait_height PORT: seconds until the node at RPC PORT reaches the source's height
wait_height() {
  local t0; t0=$(date +%s.%N)
  until [[ $(height "$1") == "$want" ]]; do sleep 0.05; done
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$t0" "$(date +%s.%N)"
}
# cpu_of PID: the process's CPU seconds so far (user + system)
cpu_of() { awk -v t="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / t}' "/proc/$1/stat" 2>/dev/null || echo 0; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# exclusive N: --add-exclusive-node flags for the first N sources
exclusive() { local i; for ((i = 0; i < $1; i++)); do printf -- '--add-exclusive-node\n%s\n' "${nodes[i]}"; done; }

# gonero_start N: a gonerod with an empty chain syncing from the first N sources, as $g (started here, not in a
# command substitution, which would wait for its output)
gonero_start() {
  rm -rf "$work/g"
  mapfile -t ex < <(exclusive "$1")
  ip netns exec "$NS" "${2:-$work/gonerod}" --regtest --fixed-difficulty 1 --no-zmq --data-dir "$work/g" --rpc-bind-port 38681 \
    --p2p-bind-ip 127.0.0.1 --p2p-bind-port 38680 "${ex[@]}" --log-level warn "${gargs[@]}" >"$work/gonerod.log" 2>&1 &
  g=$!; procs+=("$g")
}
gonero_stop() { kill "$g"; wait "$g" 2>/dev/null || true; }
# monero_start N: a fresh monerod syncing from the first N sources, as $m
monero_start() {
  rm -rf "$work/m"
  mapfile -t ex < <(exclusive "$1")
  m=$(lab start --fresh -d "$work/m" -r 38781 -p 38780 --online -- "${ex[@]}"); pids+=("$m")
}

gonero=() monero=() fromgonero=() goneroN=() moneroN=() gcpu=() mcpu=() beforeT=() bcpu=()
for ((i = 0; i < runs; i++)); do
  if [[ -n $before ]]; then
    gonero_start 1 "$before"
    beforeT+=("$(wait_height 38681)"); bcpu+=("$(cpu_of "$g")")
    gonero_stop
  fi
  gonero_start 1
  gonero+=("$(wait_height 38681)"); gcpu+=("$(cpu_of "$g")")
  # the synced gonerod as the source of a fresh monerod
  rm -rf "$work/mg"
  mg=$(lab start --fresh -d "$work/mg" -r 38881 -p 38880 --online -- --add-exclusive-node 127.0.0.1:38680); pids+=("$mg")
  fromgonero+=("$(wait_height 38881)")
  lab stop "$mg" >/dev/null 2>&1
  gonero_stop
  monero_start 1
  monero+=("$(wait_height 38781)"); mcpu+=("$(cpu_of "$m")")
  lab stop "$m" >/dev/null 2>&1
  echo "round $((i + 1)): gonerod ${gonero[-1]} s (cpu ${gcpu[-1]} s)${before:+, before ${beforeT[-1]:-} s (cpu ${bcpu[-1]:-} s)}, monerod ${monero[-1]} s (cpu ${mcpu[-1]} s); load $(cut -d' ' -f1 /proc/loadavg)" >&2
  if ((peers > 1)); then
    gonero_start "$peers"
    goneroN+=("$(wait_height 38681)")
    gonero_stop
    monero_start "$peers"
    moneroN+=("$(wait_height 38781)")
    lab stop "$m" >/dev/null 2>&1
  fi
done
line() { printf '%-22s %8.3f s  %8.0f blocks/s   (runs: %s)\n' "$1" "$2" "$(python3 -c "print($want/$2)")" "$3"; }
gs=$(printf '%s\n' "${gonero[@]}" | median); ms=$(printf '%s\n' "${monero[@]}" | median)
fs=$(printf '%s\n' "${fromgonero[@]}" | median)
printf 'chain: %s blocks; runs: %s (median, interleaved); delay each way: %s ms; load average %s\n' "$want" "$runs" "$delay" "$(cut -d' ' -f1-3 /proc/loadavg)"
line 'gonerod <- monerod' "$gs" "${gonero[*]}"
line 'monerod <- monerod' "$ms" "${monero[*]}"
line 'monerod <- gonerod' "$fs" "${fromgonero[*]}"
gc=$(printf '%s\n' "${gcpu[@]}" | median); mc=$(printf '%s\n' "${mcpu[@]}" | median)
printf 'CPU of the syncing node (median): gonerod %s s, monerod %s s: %.1fx\n' "$gc" "$mc" "$(python3 -c "print($mc/max($gc,0.01))")"
if [[ -n $before ]]; then
  bs=$(printf '%s\n' "${beforeT[@]}" | median); bc=$(printf '%s\n' "${bcpu[@]}" | median)
  line 'gonerod --before <- monerod' "$bs" "${beforeT[*]}"
  printf 'before: monerod time / gonerod time %.1fx (cpu %.1fx); before / after: wall %.2fx, cpu %.2fx\n' \
    "$(python3 -c "print($ms/$bs)")" "$(python3 -c "print($mc/max($bc,0.01))")" "$(python3 -c "print($bs/$gs)")" "$(python3 -c "print($bc/max($gc,0.01))")"
fi
if ((peers > 1)); then
  gn=$(printf '%s\n' "${goneroN[@]}" | median); mn=$(printf '%s\n' "${moneroN[@]}" | median)
  line "gonerod <- $peers monerods" "$gn" "${goneroN[*]}"
  line "monerod <- $peers monerods" "$mn" "${moneroN[*]}"
  printf 'from %s peers instead of 1: gonerod %.2fx the time, monerod %.2fx\n' "$peers" \
    "$(python3 -c "print($gn/$gs)")" "$(python3 -c "print($mn/$ms)")"
fi
printf 'syncing, monerod time / gonerod time: %.1fx; monerod syncing from gonerod vs from monerod: %.2fx the time\n' \
  "$(python3 -c "print($ms/$gs)")" "$(python3 -c "print($fs/$ms)")"
