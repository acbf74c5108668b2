#!/usr/bin/env bash
# Import speed: gonerod import vs monero-blockchain-import on the same export file, in one run.
#
# Usage: bench/import.sh [-n RUNS] [--blocks N] [FILE]
#   FILE       an export file (default: shared/testdata/regtest/blockchain.raw, 300 blocks, 10 txs)
#   --blocks N instead build a regtest chain of N blocks with monerod (generateblocks, fixed difficulty 1)
#              and export it; takes roughly 25 ms per block
#   -n RUNS    repetitions of each import (default 3); the median time is reported
# monero-blockchain-import verifies ring signatures and RingCT proofs, which gonerod does not (see README).
# Prints seconds and blocks/s per importer and the ratio. Needs root (network namespace) and the
# monero package. monerod and its tools run only inside a loopback-only namespace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/.." && pwd); shared=$(cd "$root/../shared" && pwd)
runs=3 blocks=0 file=$shared/testdata/regtest/blockchain.raw
while (($#)); do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    --blocks) blocks=$2; shift 2 ;;
    *) file=$1; shift ;;
  esac
done
NS=${GONERO_NETNS:-gonero-bench}
ip netns list | awk '{print $1}' | grep -qx "$NS" || ip netns add "$NS"
ip netns exec "$NS" ip link set lo up
work=$(mktemp -d /tmp/gonero-bench.XXXXXX); trap 'rm -rf "$work"' EXIT

if ((blocks > 0)); then
  echo "building a $blocks-block regtest chain with monerod..." >&2
  pid=$(NETNS=$NS "$shared/tools/monerod-lab" start --fresh -d "$work/node" -r 38481 -p 38480)
  addr=43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS
  left=$blocks
  while ((left > 0)); do
    step=$((left > 500 ? 500 : left))
    NETNS=$NS "$shared/tools/monerod-lab" rpc 38481 generateblocks "{\"amount_of_blocks\":$step,\"wallet_address\":\"$addr\"}" >/dev/null
    left=$((left - step))
  done
  NETNS=$NS "$shared/tools/monerod-lab" stop "$pid" >/dev/null 2>&1
  (cd "$work" && ip netns exec "$NS" monero-blockchain-export --regtest --data-dir "$work/node" \
      --output-file "$work/chain.raw" >/dev/null 2>&1)
  file=$work/chain.raw
fi

(cd "$root" && go build -o "$work/gonerod" ./cmd/gonerod)
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() { # command... -> seconds
  local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN {print e - s}'
}
run_gonero()  { rm -rf "$work/g"; timeit "$work/gonerod" import --regtest --fixed-difficulty 1 --data-dir "$work/g" --input-file "$file"; }
run_monero()  { rm -rf "$work/m"; (cd "$work" && timeit ip netns exec "$NS" monero-blockchain-import --regtest \
                  --fixed-difficulty 1 --data-dir "$work/m" --input-file "$file" "$@"); }

n=$("$work/gonerod" import --regtest --fixed-difficulty 1 --data-dir "$work/probe" --input-file "$file" 2>&1 \
    | sed -n 's/.*summary="\([0-9]*\) blocks added.*/\1/p')
g=$(for _ in $(seq "$runs"); do run_gonero; done | median)
m=$(for _ in $(seq "$runs"); do run_monero; done | median)
printf '%s: %d blocks imported after genesis, median of %d runs\n' "$(basename "$file")" "$n" "$runs"
row() { awk -v name="$1" -v t="$2" -v n="$n" 'BEGIN {printf "%-56s %8.3f s %10.0f blocks/s\n", name, t, n / t}'; }
row "gonerod import" "$g"
row "monero-blockchain-import (verified)" "$m"
awk -v g="$g" -v m="$m" 'BEGIN {printf "speed ratio gonerod/monero-blockchain-import: %.1fx\n", m / g}'
