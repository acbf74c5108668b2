#!/usr/bin/env bash
# Import speed: gonerod import vs monero-blockchain-import on the same export file, in one run, both verifying
# everything (proof of work, every transaction's rules, ring signatures / CLSAGs, range proofs).
#
# Usage: bench/import.sh [-n RUNS] [--blocks N | --heavy [TXS] | --heavy-dir DIR] [FILE]
#   FILE            an export file (default: testdata/regtest/blockchain.raw, 300 blocks, 10 txs)
#   --blocks N      instead build a coinbase-only regtest chain of N blocks with monerod (generateblocks, fixed
#                   difficulty 1) and export it; takes roughly 25 ms per block
#   --heavy [TXS]   instead build a transaction-heavy chain with bench/lab.sh buildheavy (TXS RingCT
#                   transactions, default 2000: CLSAG, BP+, ring 16, varied shapes; about 4 minutes on 2 cores) and
#                   import its blockchain.raw. Built in a temporary directory unless --heavy-dir is given
#   --heavy-dir DIR reuse the heavy chain in DIR (DIR/blockchain.raw) if it is there, otherwise build it into DIR
#                   (with --heavy's TXS), so that later runs measure the same chain without rebuilding
#   -n RUNS         repetitions of each import (default 3), interleaved (gonerod, monero, gonerod, ...); the median
#                   wall and CPU (user + system) times are reported
#   --before BIN    also time this gonerod binary (e.g. built from main) in the same rounds: before/after ratios
# Both importers verify: gonerod import always does; monero-blockchain-import runs in its default verifying mode,
# passed explicitly as --dangerous-unverified-import 0 (the only switch that turns its checks off: with it set,
# blocks go straight into the database), and --fast-block-sync 0 so that no block is taken on trust from a list of
# known hashes (regtest has none anyway). Verifying, it hands the blocks to the core in groups (--batch-size): each
# block's transactions go through handle_incoming_tx (range proofs batched per block) and then the block through
# handle_incoming_block, signatures on its thread pool.
# Prints seconds, blocks/s and txs/s (non-coinbase transactions) per importer and the ratio (monero time / gonero
# time). Needs root (network namespace) and the monero package. monerod and its tools run only inside a loopback-only
# namespace ($GONERO_NETNS, default gonero-bench): nothing leaves 127.0.0.1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
runs=3 blocks=0 heavy=0 heavydir= before= file=$root/testdata/regtest/blockchain.raw
while (($#)); do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    --blocks) blocks=$2; shift 2 ;;
    --heavy)
      heavy=2000; shift
      if (($#)) && [[ "$1" =~ ^[0-9]+$ ]]; then heavy=$1; shift; fi ;;
    --heavy-dir) heavydir=$2; shift 2; ((heavy > 0)) || heavy=2000 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) file=$1; shift ;;
  esac
done
NS=${GONERO_NETNS:-gonero-bench}
ensure_ns
# loopback only: the namespace must have no other interface and no route
ns_only_lo || { echo "namespace $NS has interfaces other than lo; refusing to run monerod in it" >&2; exit 1; }
work=$(mktemp -d /tmp/gonero-bench.XXXXXX); trap 'rm -rf "$work"' EXIT

if ((blocks > 0)); then
  echo "building a $blocks-block regtest chain with monerod..." >&2
  pid=$(NETNS=$NS "$LAB" start --fresh -d "$work/node" -r 38481 -p 38480)
  addr=43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS
  left=$blocks
  while ((left > 0)); do
    step=$((left > 500 ? 500 : left))
    NETNS=$NS "$LAB" rpc 38481 generateblocks "{\"amount_of_blocks\":$step,\"wallet_address\":\"$addr\"}" >/dev/null
    left=$((left - step))
  done
  NETNS=$NS "$LAB" stop "$pid" >/dev/null 2>&1
  (cd "$work" && ip netns exec "$NS" monero-blockchain-export --regtest --data-dir "$work/node" \
      --output-file "$work/chain.raw" >/dev/null 2>&1)
  file=$work/chain.raw
elif ((heavy > 0)); then
  dir=${heavydir:-$work/heavy}
  if [[ -s "$dir/blockchain.raw" ]]; then
    echo "reusing the heavy chain in $dir" >&2
  else
    echo "building a heavy chain of $heavy transactions in $dir (bench/lab.sh buildheavy, a few minutes)..." >&2
    NETNS=$NS "$LAB" buildheavy "$dir" "$heavy" >&2
  fi
  [[ -f "$dir/summary.txt" ]] && grep -E '^(seed|blocks|txs|inputs|outputs)=' "$dir/summary.txt" | paste -sd' ' >&2
  file=$dir/blockchain.raw
fi

(cd "$root" && go build -o "$work/gonerod" ./cmd/gonerod)
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() { # command... -> "wall cpu" seconds (cpu: user + system of the command and its children); fails if it does
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >"$work/last.log" 2>&1 || { echo "failed: $*" >&2; tail -5 "$work/last.log" >&2; return 1; }
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time"
}
run_gonero()  { rm -rf "$work/g"; timeit "${1:-$work/gonerod}" import --regtest --fixed-difficulty 1 --data-dir "$work/g" --input-file "$file"; }
run_monero()  { rm -rf "$work/m"; (cd "$work" && timeit ip netns exec "$NS" monero-blockchain-import --regtest \
                  --fixed-difficulty 1 --dangerous-unverified-import 0 --fast-block-sync 0 \
                  --data-dir "$work/m" --input-file "$file"); }

summary=$("$work/gonerod" import --regtest --fixed-difficulty 1 --data-dir "$work/probe" --input-file "$file" 2>&1 \
  | sed -n 's/.*summary="\([0-9]*\) blocks added (\([0-9]*\) transactions).*/\1 \2/p')
read -r n ntx <<<"$summary"
[[ -n "${n:-}" ]] || { echo "gonerod import of $file failed" >&2; exit 1; }
rm -rf "$work/probe"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$work/g.t"; : >"$work/m.t"; : >"$work/b.t"
for ((r = 1; r <= runs; r++)); do
  run_gonero >>"$work/g.t"
  [[ -z $before ]] || run_gonero "$before" >>"$work/b.t"
  run_monero >>"$work/m.t"
  # the monero-blockchain-import run must have imported every block
  grep -q "Number of blocks imported: $n\b" "$work/last.log" \
    || { echo "monero-blockchain-import did not import $n blocks:" >&2; tail -5 "$work/last.log" >&2; exit 1; }
  echo "round $r: gonerod $(tail -1 "$work/g.t")${before:+, before $(tail -1 "$work/b.t")}, monero $(tail -1 "$work/m.t") (wall cpu s); load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
col() { awk -v c="$2" '{print $c}' "$1" | median; }
g=$(col "$work/g.t" 1) gc=$(col "$work/g.t" 2) m=$(col "$work/m.t" 1) mc=$(col "$work/m.t" 2)
printf '%s: %d blocks after genesis, %d transactions, median of %d interleaved runs; load average %s before, %s after\n' \
  "$(basename "$file")" "$n" "$ntx" "$runs" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)"
row() { awk -v name="$1" -v t="$2" -v c="$3" -v n="$n" -v x="$ntx" \
  'BEGIN {printf "%-40s %8.3f s wall %8.2f s cpu %7.0f blocks/s %7.1f txs/s\n", name, t, c, n / t, x / t}'; }
row "gonerod import" "$g" "$gc"
if [[ -n $before ]]; then
  b=$(col "$work/b.t" 1) bc=$(col "$work/b.t" 2)
  row "gonerod import (--before)" "$b" "$bc"
fi
row "monero-blockchain-import (verifying)" "$m" "$mc"
awk -v g="$g" -v m="$m" -v gc="$gc" -v mc="$mc" 'BEGIN {printf "ratio monero / gonero: wall %.2fx, cpu %.2fx\n", m / g, mc / gc}'
if [[ -n $before ]]; then
  awk -v g="$g" -v m="$m" -v gc="$gc" -v mc="$mc" -v b="$b" -v bc="$bc" \
    'BEGIN {printf "ratio monero / gonero --before: wall %.2fx, cpu %.2fx; before / after: wall %.2fx, cpu %.2fx\n", m / b, mc / bc, b / g, bc / gc}'
fi
