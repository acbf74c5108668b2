#!/usr/bin/env bash
# Abuse: a public node under floods. gonerod and monerod 0.18.5.3, both with --restricted-rpc and their
# default limits (100 RPC connections, 25 per loopback/private address), serve the same transaction-heavy
# regtest chain; each attack runs against each node for a bounded time while a legitimate client on its own
# address (127.0.0.200) makes get_info, block header and small /getblocks.bin requests, each on a NEW
# connection (as a wallet or explorer that comes and goes), one every 20 ms at most; a connection refused
# or closed is a failed request. The attack starts 1 s before the client. Prints a markdown table: per
# attack and node the legitimate client's success rate (share of its requests answered, and share of the
# time: a request weighs the time until the next, so a refusal held 250 ms weighs 250 ms), p50 and p99, the
# node's peak RSS, the recovery time after the attack (until five requests in a row are answered within
# 250 ms) and crashes; gonerod's rows are marked against the targets (>= 95 % of the requests and of the
# time, p99 <= 250 ms, RSS < 512 MB, recovery <= 2 s, no crash).
#
# Usage: bench/abuse.sh [-d SECONDS] [--attacks a,b] [--nodes gonerod,monerod] [--out FILE] [--attacker-nice N]
#   -d SECONDS     length of each attack (default 15; about 20 minutes for everything)
#   --all-d SECONDS length of all-at-once (default 60)
#   --all-skip LIST floods all-at-once leaves out (to tell which one sinks the rest)
#   --attacks LIST some of the attacks below (default: all)
#   --nodes LIST   gonerod,monerod (default both)
#   --out FILE     also write the table to FILE
#   --work DIR     keep the nodes' directories and logs in DIR (default: a temporary directory, removed)
#   --log-level L  gonerod's --log-level (default warn; debug logs each RPC refusal and eviction)
#   --gonerod-args "FLAGS" more flags for the attacked gonerod (e.g. "--memory-limit 0")
#   --attacker-same-process run the floods in the legitimate client's process, sharing its Go
#                  scheduler and collector (the mode of the runs before 2026-12-06). By default each
#                  flood runs in a process of its own, as a remote attacker's does not slow the client.
#   --attacker-process the default, kept for the command lines of earlier runs
#   --attacker-nice N run the flood's process at nice N (1-19): on the Internet the attacker's CPU
#                  is not the node's. Applied alike to both nodes; the table's heading names the mode.
#
# Environment: GONEROD=path uses that gonerod binary (default: build ./cmd/gonerod); ABUSE_CHAIN=DIR the
# heavy chain (default /tmp/gonero-abuse-heavy, built once with monerodlab buildheavy, 2000 transactions,
# about 15 minutes, and reused); GONERO_NETNS the namespace (default gonero-test); TXS the heavy chain's
# transaction count when it is built.
#
# Attacks (attackers use 127.N.0.1 on, a /16 per attack so that bans and remembered standing do not carry over;
# never the client's address): 2,000 idle RPC connections from 200
# addresses opened once and held (rpc-idle-held); 1,000 slowloris connections from 100 addresses, a header
# line a second, held (rpc-slowloris-held); the same two with each slot reconnecting as soon as closed or
# refused (rpc-conn-flood, rpc-slowloris); 8 addresses x 25 reconnecting idle connections, twice the cap
# (rpc-conn-flood-8); 2,000 addresses, one connection each, one cheap request then idle until closed,
# reconnecting (rpc-addr-churn); 200 keep-alive connections from 50 addresses looping the costliest restricted
# requests as fast as answered (rpc-expensive: /getblocks.bin from 0, get_output_distribution from 0,
# get_outs of 4000 indices, /getblocks_by_height.bin of 1000 heights, getblockheadersrange of 1000,
# get_transactions of 100 decoded, get_output_histogram); 20 keep-alive connections from 20 addresses posting a
# 256-call JSON-RPC batch of the costliest /json_rpc calls, ~27 kB, in a loop (rpc-batch; issue 33: 80 MB of
# answers per batch, RSS 3.8 GB, before answers were bounded); malformed bodies and garbage heads; 300 ZMQ RPC
# connections (both nodes serve a restricted ZMQ RPC) from 30 addresses asking get_blocks_fast of the whole chain,
# half reading each answer and asking again, half pipelining requests and never reading, while a ZMQ client asks
# get_height every 200 ms (zmq-rpc-flood; its note gives that client's answers); a P2P
# connection flood; a P2P garbage flood (random bytes, a 100 MB levin announce); 20 P2P peers asking for
# blocks and chains as fast as taken, reading the answers (p2p-blocks) or never (p2p-blocks-noread); 20 P2P peers
# sending 48 MB messages of garbage transactions (p2p-garbage-txs); a fresh gonerod syncing the
# chain from the attacked node alone (the reference time), then during P2P-connection and expensive-request
# floods. Round two (issue 33): 20 P2P peers relaying real chain transactions given fresh unspent-looking
# key images, so bad signatures, as fast as taken, reconnecting from a new address when dropped
# (p2p-bad-sig-txs); the same transactions again and again over P2P (p2p-dup-txs); those bad-signature
# transactions to /sendrawtransaction from 50 keep-alive connections (rpc-invalid-txs); JSON and epee bombs
# just under the 1 MiB body limit (deep nesting, arrays of ~500,000 values, megabyte strings, huge id and
# output lists) and one just over it (rpc-bombs); rpc-addr-churn from 20,000 addresses
# (rpc-addr-churn-20k) and over IPv6 with each connection from a new random address of a whole /48
# (rpc-addr-churn-v6: the nodes also serve RPC on [::1]; fd00:1::/48 is routed to loopback in the
# namespace); and every flood at once for --all-d seconds (all-at-once; targets RSS < 1 GB and the client
# >= 95 %; each flood keeps 300 of the attacker's sockets for itself, so that the floods of thousands of
# connections do not starve the P2P floods of descriptors). Before each attack every node's get_info height must be the chain's (a store copied empty
# fails the run). --attacks names: none (baseline), rpc-idle-held, rpc-slowloris-held, rpc-conn-flood,
# rpc-conn-flood-8, rpc-addr-churn, rpc-slowloris, rpc-expensive, rpc-batch, rpc-malformed, zmq-rpc-flood,
# p2p-conn-flood, p2p-garbage, p2p-blocks, p2p-blocks-noread, p2p-garbage-txs, p2p-bad-sig-txs,
# p2p-dup-txs, rpc-invalid-txs, rpc-bombs, rpc-addr-churn-20k, rpc-addr-churn-v6, all-at-once, sync-alone,
# sync-during-flood.
#
# Network: everything runs inside the loopback-only namespace $GONERO_NETNS; needs root, Go, and monerod
# 0.18.5.3 (/opt/monero-latest/bin first on the PATH). Every loop is bounded in time; every process started
# here is stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-test}
CHAIN=${ABUSE_CHAIN:-/tmp/gonero-abuse-heavy}
duration=15 alld=60 allskip= attacks= nodes=gonerod,monerod out= work= loglevel= gonerodargs= attackerproc= attackernice=

while (($#)); do
  case "$1" in
    -d) duration=${2:?-d needs seconds}; shift 2 ;;
    --all-d) alld=${2:?--all-d needs seconds}; shift 2 ;;
    --all-skip) allskip=${2:?}; shift 2 ;;
    --attacks) attacks=${2:?}; shift 2 ;;
    --nodes) nodes=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --log-level) loglevel=${2:?}; shift 2 ;;
    --gonerod-args) gonerodargs=${2?}; shift 2 ;;
    --attacker-process) attackerproc=; shift ;;
    --attacker-same-process) attackerproc=same; shift ;;
    --attacker-nice) attackernice=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) unknown_arg "$1" ;;
  esac
done
[[ $duration =~ ^[1-9][0-9]*$ ]] && ((duration <= 600)) || die "-d must be 1..600 seconds"
[[ $alld =~ ^[1-9][0-9]*$ ]] && ((alld <= 600)) || die "--all-d must be 1..600 seconds"

need_root
ns_exists || die "network namespace $NS does not exist (make test creates it)"
export PATH=/opt/monero-latest/bin:$PATH
command -v monerod >/dev/null || die "monerod not found (scripts/monero-reference.sh installs 0.18.5.3)"
monerod --version | grep -q 'v0\.18\.5\.3' || note "warning: $(monerod --version | tail -1) is not the reference 0.18.5.3"

bin=$(mktemp -d /tmp/gonero-abuse-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/abuse" ./bench/abuse && go build -o "$bin/monerodlab" ./internal/monerodlab/cmd/monerodlab)
gonerod=${GONEROD:-}
if [[ -z $gonerod ]]; then
  (cd "$root" && go build -o "$bin/gonerod" ./cmd/gonerod)
  gonerod=$bin/gonerod
fi
[[ -x $gonerod ]] || die "GONEROD=$gonerod is not an executable"
gonerod=$(cd "$(dirname "$gonerod")" && pwd)/$(basename "$gonerod")

if [[ ! -f $CHAIN/blockchain.raw || ! -d $CHAIN/node1 ]]; then
  note "building the heavy chain in $CHAIN (once; about 15 minutes)"
  rm -rf "$CHAIN.build"
  GONERO_NETNS=$NS "$bin/monerodlab" buildheavy "$CHAIN.build" "${TXS:-2000}" >&2
  mv "$CHAIN.build" "$CHAIN"
fi

args=(-gonerod "$gonerod" -chain "$CHAIN" -d "${duration}s" -all-d "${alld}s" -nodes "$nodes")
[[ -n $attacks ]] && args+=(-attacks "$attacks")
[[ -n $allskip ]] && args+=(-all-skip "$allskip")
[[ -n $out ]] && args+=(-out "$out")
[[ -n $work ]] && { mkdir -p "$work"; args+=(-work "$(cd "$work" && pwd)"); }
[[ -n $loglevel ]] && args+=(-log-level "$loglevel")
[[ -n $gonerodargs ]] && args+=(-gonerod-args "$gonerodargs")
[[ $attackerproc == same ]] && args+=(-attacker-process=false)
if [[ -n $attackernice ]]; then
  [[ $attackerproc == same ]] && die "--attacker-nice needs the floods in a process of their own"
  [[ $attackernice =~ ^[0-9]+$ ]] && ((attackernice <= 19)) || die "--attacker-nice must be 0..19"
  args+=(-attacker-nice "$attackernice")
fi
# rpc-addr-churn-v6 binds sources anywhere in fd00:1::/48 (with IP_FREEBIND): the /48 is local, on the
# namespace's loopback alone.
in_ns ip -6 route replace local fd00:1::/48 dev lo || die "cannot route fd00:1::/48 to loopback in $NS"
# 20,000 addresses' connections and every flood at once need more descriptors than the usual 20,000 (the
# attacker holds one end, the node the other); the nodes inherit the limit.
ulimit -Hn 200000 2>/dev/null && ulimit -n 200000 || note "warning: cannot raise the descriptor limit above $(ulimit -n)"
# The namespace has loopback alone: no packet of the nodes or the attackers leaves this machine.
ip netns exec "$NS" "$bin/abuse" "${args[@]}"
