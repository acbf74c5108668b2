#!/usr/bin/env bash
# monero-lws, the light-wallet server, on gonerod and on monerod 0.18.5.3: the same chain, the same wallets, the
# same answers. gonerod and monerod serve the heavy regtest chain with their ZMQ RPC and ZMQ publisher (each the
# other's only P2P peer); one monero-lws-daemon per node (--daemon its ZMQ RPC, --sub its publisher, its own
# database and REST port, --network main --regtest: the regtest chain has mainnet's genesis and addresses) gets
# two of the chain's wallets by address and view key (monero-lws-admin add_account, rescan 0; the keys read from
# the wallet files with monero-wallet-rpc) and scans them from block 0, timed, -n times per node, interleaved.
# Then /get_address_info, /get_address_txs, /get_unspent_outs (each wallet) must answer the same JSON through
# both, and /get_random_outs the same shape (random outputs differ by design) with every output the chain's
# (monerod's get_outs); the first wallet's transaction to the second, submitted with /submit_raw_tx through the lws
# on gonerod, must show in both lws's pool views, then mined by gonerod (monerod syncs the block) in both, and
# the four endpoints compared again. Prints a markdown table, the scan times and the ratio gonerod/monerod; exits
# 1 on any mismatch.
#
# Usage: bench/lws.sh --lws-bin DIR [--chain DIR] [-n RUNS] [--work DIR] [--out FILE] [--gonerod BIN]
#   --lws-bin DIR  where monero-lws-daemon and monero-lws-admin are (default $LWS_BIN). monero-lws is not part
#                  of this repository and nothing here builds it: build its release-v1.0_0.18 branch (for
#                  monerod 0.18) as its README says, outside the repository
#   --chain DIR    a monerodlab buildheavy chain (blockchain.raw, node1, wallets/w1..); default
#                  /tmp/gonero-abuse-heavy (bench/abuse.sh's), built once here with TXS (default 2000)
#                  transactions if missing (about 15 minutes on 2 cores)
#   -n RUNS        timed scans per node (default 3, the median is reported)
#   --work DIR     keep the nodes', wallets' and lws databases and logs in DIR (default: a temporary directory)
#   --out FILE     also write the table to FILE
#   --gonerod BIN  this gonerod binary (default: build ./cmd/gonerod)
#
# Network: everything runs inside the loopback-only namespace $GONERO_NETNS (default gonero-test); needs root, Go,
# monerod and monero-wallet-rpc 0.18.5.3 (/opt/monero-latest/bin first on the PATH). Every process started here
# is stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-test}
CHAIN=/tmp/gonero-abuse-heavy
lws_bin=${LWS_BIN:-} runs=3 work= out= gonerod_bin=

while (($#)); do
  case "$1" in
    --lws-bin) lws_bin=${2:?--lws-bin needs a directory}; shift 2 ;;
    --chain) CHAIN=${2:?--chain needs a directory}; shift 2 ;;
    -n) runs=${2:?-n needs a count}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --gonerod) gonerod_bin=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) unknown_arg "$1" ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] && ((runs <= 20)) || die "-n must be 1..20"
[[ -n $lws_bin ]] || die "--lws-bin DIR (or LWS_BIN) is required: the directory of monero-lws-daemon and monero-lws-admin"
for b in monero-lws-daemon monero-lws-admin; do
  [[ -x $lws_bin/$b ]] || die "$lws_bin/$b not found or not executable"
done
lws_bin=$(cd "$lws_bin" && pwd)

need_root
ns_exists || die "network namespace $NS does not exist (make test creates it)"
ns_only_lo || die "namespace $NS has interfaces other than lo: refusing to run"
export PATH=/opt/monero-latest/bin:$PATH
need_tools "scripts/monero-reference.sh installs 0.18.5.3" monerod monero-wallet-rpc
monerod --version | grep -q 'v0\.18\.5\.3' || note "warning: $(monerod --version | tail -1) is not the reference 0.18.5.3"

bin=$(mktemp -d /tmp/gonero-lws-bin.XXXXXX)
# The Go driver stops what it started when it gets SIGTERM (ip netns exec passes it on, having exec'd it).
cleanup() {
  if [[ -n $fg_pid ]]; then kill -TERM "$fg_pid" 2>/dev/null; wait "$fg_pid" 2>/dev/null; fi
  rm -rf "$bin"
}
on_exit cleanup
go_build "$bin/lws" ./bench/lws
go_build "$bin/monerodlab" ./internal/monerodlab/cmd/monerodlab
if [[ -n $gonerod_bin ]]; then
  [[ -x $gonerod_bin ]] || die "--gonerod $gonerod_bin is not an executable"
  gonerod_bin=$(cd "$(dirname "$gonerod_bin")" && pwd)/$(basename "$gonerod_bin")
else
  go_build "$bin/gonerod" ./cmd/gonerod
  gonerod_bin=$bin/gonerod
fi

if [[ ! -f $CHAIN/blockchain.raw || ! -d $CHAIN/node1 || ! -d $CHAIN/wallets ]]; then
  note "building the heavy chain in $CHAIN (once; about 15 minutes)"
  rm -rf "$CHAIN.build"
  run_in "$root" env GONERO_NETNS="$NS" ip netns exec "$NS" "$bin/monerodlab" buildheavy "$CHAIN.build" "${TXS:-2000}" >&2 \
    || die "building the heavy chain failed"
  mv "$CHAIN.build" "$CHAIN"
fi
CHAIN=$(cd "$CHAIN" && pwd)

args=(-gonerod "$gonerod_bin" -lws-bin "$lws_bin" -chain "$CHAIN" -n "$runs")
[[ -n $out ]] && args+=(-out "$out")
[[ -n $work ]] && { mkdir -p "$work"; args+=(-work "$(cd "$work" && pwd)"); }
# The namespace has loopback alone: no packet of the nodes, the wallets or monero-lws leaves this machine.
run_in "$root" ip netns exec "$NS" "$bin/lws" "${args[@]}"
