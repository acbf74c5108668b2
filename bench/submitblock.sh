#!/usr/bin/env bash
# Block submission latency: gonerod vs monerod, solo-mined the way a miner in daemon mode does it (issue 29).
#
# Usage: bench/submitblock.sh [-n BLOCKS] [-D DIFFICULTY] [options]
#   -n BLOCKS      blocks mined on each node (default 30): the first, then BLOCKS-1 for the median and p90
#   -D DIFFICULTY  both nodes' --fixed-difficulty (default 16). At 1 every hash wins and gonerod never hashes
#                  a block (its check skips difficulty 1) while monerod does: use a difficulty above 1 to
#                  compare the proof-of-work path, which is what a real chain has
#   --gonerod BIN  benchmark this gonerod binary instead of building ./cmd/gonerod (e.g. an older commit's)
#   --out FILE     also write every block's line (node, height, submit_ms, hashes) to FILE
#   --port-base N  ports N (monerod p2p), N+1 (monerod rpc), N+2 (gonerod p2p), N+3 (gonerod rpc)
#                  (default 38720)
#
# What it does: starts monerod (the reference, 0.18.5.3) and gonerod, each on a fresh regtest chain of its own
# with --fixed-difficulty DIFFICULTY and --offline, then runs bench/submitblock, which mines on both in turns,
# a block on each per round (the order alternating, so that both see the same load), as XMRig does in daemon
# mode: get_block_template, a RandomX nonce search (light mode, the template's seed) until the hash meets the
# template's difficulty, the nonce patched into the template blob, submit_block. Only the submit_block round
# trip is timed. It checks that every block is accepted and the chain grows by one. It reports, per node, the
# first submission's latency (the node was just started: what a pool sees after a restart), the median and
# p90 over the other blocks, and the ratios gonerod/monerod (the issue's target: first and median at most
# monerod's, ratio <= 1). The miner starts as soon as both nodes answer RPC and builds its own RandomX cache
# (~0.5 s idle, several seconds on a busy machine) before its first hash, as a real miner does.
#
# Network: everything runs inside the network namespace $GONERO_NETNS (default gonero-test), which has
# loopback alone. Needs root, monerod (/opt/monero-latest/bin first on the PATH: scripts/monero-reference.sh),
# curl, go, librandomx. Bounded: 2*BLOCKS blocks (at difficulty D about D light-mode hashes each, ~20 ms a hash
# on an idle core) plus ~30 s of setup; every process started here is stopped on exit, error or Ctrl-C.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-test}
[[ -x /opt/monero-latest/bin/monerod ]] && export PATH=/opt/monero-latest/bin:$PATH

blocks=30 difficulty=16 port_base=38720
gonerod_bin= out_file=

while (($#)); do
  case "$1" in
    -n) blocks=${2:?-n needs a count}; shift 2 ;;
    -D) difficulty=${2:?-D needs a difficulty}; shift 2 ;;
    --gonerod) gonerod_bin=${2:?}; shift 2 ;;
    --port-base) port_base=${2:?}; shift 2 ;;
    --out) out_file=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) unknown_arg "$1" ;;
  esac
done
[[ $blocks =~ ^[0-9]+$ ]] && ((blocks >= 2 && blocks <= 500)) || die "-n must be 2..500"
[[ $difficulty =~ ^[0-9]+$ ]] && ((difficulty >= 1 && difficulty <= 1000)) || die "-D must be 1..1000"
check_port_base "$port_base"
m_p2p=$port_base m_rpc=$((port_base + 1)) g_p2p=$((port_base + 2)) g_rpc=$((port_base + 3))

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
flock -n 9 || die "another bench/submitblock.sh is running"
need_tools "scripts/monero-reference.sh; apt-get install -y curl" ip monerod curl go
ensure_ns
for p in "$m_p2p" "$m_rpc" "$g_p2p" "$g_rpc"; do
  port_busy "$p" && die "port $p is in use in namespace $NS (try --port-base)"
done

work=$(mktemp -d /tmp/gonero-bench-submitblock.XXXXXX)
[[ -n $gonerod_bin ]] || note "building gonerod"
gonerod_to "$work/gonerod"
go_build "$work/submitblock" ./bench/submitblock

note "starting monerod $(monerod --version | grep -o 'v[0-9.]*' | head -1) (regtest, --fixed-difficulty $difficulty, rpc 127.0.0.1:$m_rpc)"
run_in "$work" env NETNS="$NS" "$LAB" start --fresh -d "$work/m" -r "$m_rpc" -p "$m_p2p" -t 180 --fixed-difficulty "$difficulty" \
  >"$work/monerod-lab.pid" 2>"$work/monerod-lab.out" 9<&- || { cat "$work/monerod-lab.out" >&2; die "monerod did not come up"; }
monerod_pid=$(<"$work/monerod-lab.pid")

note "starting gonerod (regtest, --fixed-difficulty $difficulty, rpc 127.0.0.1:$g_rpc)"
ip netns exec "$NS" "$work/gonerod" --regtest --offline --no-zmq --fixed-difficulty "$difficulty" --data-dir "$work/g" \
  --p2p-bind-port "$g_p2p" --rpc-bind-port "$g_rpc" </dev/null >"$work/gonerod.log" 2>&1 9<&- &
gonerod_pid=$!
for ((i = 0; i < 300; i++)); do
  kill -0 "$gonerod_pid" 2>/dev/null || { tail -20 "$work/gonerod.log" >&2; gonerod_pid=; die "gonerod exited"; }
  in_ns curl -s -m 2 "http://127.0.0.1:$g_rpc/get_height" 2>/dev/null | grep -q '"status": *"OK"' && break
  sleep 0.1
done
((i < 300)) || die "gonerod did not answer within 30 s"

note "mining $blocks blocks on each node"
run_in "$work" ip netns exec "$NS" "$work/submitblock" -n "$blocks" \
  -rpc "gonerod=127.0.0.1:$g_rpc,monerod=127.0.0.1:$m_rpc" >"$work/submitblock.out" 2>&1 \
  || { tail -20 "$work/submitblock.out" >&2; die "mining failed"; }
kill -0 "$gonerod_pid" 2>/dev/null || die "gonerod died"
kill -0 "$monerod_pid" 2>/dev/null || die "monerod died"
[[ -z $out_file ]] || cp "$work/submitblock.out" "$out_file"

echo "submit_block latency, $blocks blocks on each node, regtest --fixed-difficulty $difficulty, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
  $2 == "summary" { printf "  %-8s first %9.1f ms   median %8.1f ms   p90 %8.1f ms   (%d blocks)\n", $1, $4, $6, $8, $10 }
  $1 == "ratio"   { printf "  %s  first %.2f   median %.2f   p90 %.2f\n", $2, $4, $6, $8 }
' "$work/submitblock.out"
