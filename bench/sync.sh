#!/usr/bin/env bash
# P2P sync speed, in one run on the same chain: how long a node with an empty chain takes to sync it over P2P
# from a monerod that holds it — gonerod (--add-exclusive-node) against a second monerod doing the same — and
# how long a fresh monerod takes to sync it from gonerod (is gonerod a fast enough source?).
#
# Usage: bench/sync.sh [--blocks N] [-n RUNS]
#   --blocks N  the chain: N blocks mined by monerod at fixed difficulty 1 (default 1000; coinbase only)
#   -n RUNS     repetitions per node (default 3); the median is reported
# monerod also verifies what gonerod does not (ring signatures, RingCT; none here: coinbase-only chain), and
# both sides run on the same cores. Needs root and the monero package; everything runs in a loopback-only namespace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/.." && pwd); shared=$(cd "$root/../shared" && pwd)
blocks=1000 runs=3
while (($#)); do
  case "$1" in
    --blocks) blocks=$2; shift 2 ;;
    -n) runs=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
NS=${GONERO_NETNS:-gonero-bench}
ip netns list | awk '{print $1}' | grep -qx "$NS" || ip netns add "$NS"
ip netns exec "$NS" ip link set lo up
lab() { NETNS=$NS "$shared/tools/monerod-lab" "$@"; }
work=$(mktemp -d /tmp/gonero-sync-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do lab stop "$p" >/dev/null 2>&1 || kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
(cd "$root" && go build -o "$work/gonerod" ./cmd/gonerod)

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
src=$(lab start -d "$work/src" -r 38581 -p 38580 --online); pids+=("$src")
height() { ip netns exec "$NS" curl -s -m 2 "127.0.0.1:$1/get_height" | python3 -c 'import json,sys; print(json.load(sys.stdin)["height"])' 2>/dev/null || echo 0; }
want=$(height 38581)

# wait_height PORT: seconds until the node at RPC PORT reaches the source's height
wait_height() {
  local t0; t0=$(date +%s.%N)
  until [[ $(height "$1") == "$want" ]]; do sleep 0.05; done
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$t0" "$(date +%s.%N)"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

gonero=() monero=() fromgonero=()
for ((i = 0; i < runs; i++)); do
  rm -rf "$work/g"
  ip netns exec "$NS" "$work/gonerod" --regtest --fixed-difficulty 1 --data-dir "$work/g" --rpc-bind-port 38681 \
    --p2p-bind-ip 127.0.0.1 --p2p-bind-port 38680 --add-exclusive-node 127.0.0.1:38580 --log-level warn &
  g=$!; pids+=("$g")
  gonero+=("$(wait_height 38681)")

  # the synced gonerod as the source of a fresh monerod
  rm -rf "$work/mg"
  mg=$(lab start --fresh -d "$work/mg" -r 38881 -p 38880 --online -- --add-exclusive-node 127.0.0.1:38680); pids+=("$mg")
  fromgonero+=("$(wait_height 38881)")
  lab stop "$mg" >/dev/null 2>&1
  kill "$g"; wait "$g" 2>/dev/null || true

  rm -rf "$work/m"
  m=$(lab start --fresh -d "$work/m" -r 38781 -p 38780 --online -- --add-exclusive-node 127.0.0.1:38580); pids+=("$m")
  monero+=("$(wait_height 38781)")
  lab stop "$m" >/dev/null 2>&1
done
gs=$(printf '%s\n' "${gonero[@]}" | median); ms=$(printf '%s\n' "${monero[@]}" | median)
fs=$(printf '%s\n' "${fromgonero[@]}" | median)
printf 'chain: %s blocks; runs: %s (median)\n' "$want" "$runs"
printf 'gonerod <- monerod  %8.3f s  %8.0f blocks/s   (runs: %s)\n' "$gs" "$(python3 -c "print($want/$gs)")" "${gonero[*]}"
printf 'monerod <- monerod  %8.3f s  %8.0f blocks/s   (runs: %s)\n' "$ms" "$(python3 -c "print($want/$ms)")" "${monero[*]}"
printf 'monerod <- gonerod  %8.3f s  %8.0f blocks/s   (runs: %s)\n' "$fs" "$(python3 -c "print($want/$fs)")" "${fromgonero[*]}"
printf 'syncing, monerod time / gonerod time: %.1fx; monerod syncing from gonerod vs from monerod: %.2fx the time\n' \
  "$(python3 -c "print($ms/$gs)")" "$(python3 -c "print($fs/$ms)")"
