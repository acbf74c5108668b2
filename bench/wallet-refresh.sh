#!/usr/bin/env bash
# Wallet refresh from height 0: monero-wallet-rpc through gonerod vs through monerod, same chain, one run.
#
# Usage: bench/wallet-refresh.sh [-n RUNS] [--chain DIR]... [--no-build] [--heavy-txs N] [--gonerod BIN]
#   -n RUNS         timed refreshes per daemon and chain, interleaved gonerod/monerod (default 3; the median is
#                   reported)
#   --chain DIR     a chain made by bench/lab.sh buildchain or buildheavy (DIR/blockchain.raw,
#                   DIR/node1, DIR/wallets); repeatable. Default: a new buildchain chain (300 blocks) and a new
#                   buildheavy chain of --heavy-txs transactions
#                   (default 2000), both built here in a temp dir (about 1 + 5 minutes)
#   --gonerod BIN   benchmark this gonerod binary instead of building ./cmd/gonerod
#
# What it measures: for each chain, gonerod imports DIR/blockchain.raw (gonerod import) and monerod runs on a
# copy of DIR/node1; both start offline on loopback. For each run and each daemon (alternating which goes first),
# a new monero-wallet-rpc restores the chain's first wallet from its seed with restore_height 0 while pointed at
# no daemon, switches its auto-refresh off, is given the daemon (set_daemon, trusted) and refreshes: the refresh
# call is the figure (it pulls /getblocks.bin from genesis, with the pool hashes and whatever else the wallet asks). After each refresh the wallet's height and balance are checked to be the
# same through both daemons, so a fast wrong answer cannot pass. The wallets reach the daemons through
# bench/waitproxy, which sums the time the wallet waits on its daemon (request in, answer out): the table shows
# the whole refresh, that wait (the daemon's share, which a daemon can shorten), and the rest (the wallet's own
# scanning, the same whatever the daemon), with the ratios monerod / gonerod.
#
# Network: everything runs inside the network namespace $GONERO_NETNS (default gonero-bench) with loopback
# alone. Needs root, Debian's monero package (monerod, monero-wallet-rpc), curl, python3, go (unless --gonerod).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
cd "$root"

runs=3
chains=()
heavy_txs=2000
gonerod_bin=""
while (($#)); do
  case $1 in
    -n) runs=$2; shift 2 ;;
    --chain) chains+=("$(cd "$2" && pwd)"); shift 2 ;;
    --heavy-txs) heavy_txs=$2; shift 2 ;;
    --gonerod) gonerod_bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for tool in monerod monero-wallet-rpc curl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y monero curl python3)" >&2; exit 1; }
done
[[ $(id -u) -eq 0 ]] || { echo "needs root (network namespace)" >&2; exit 1; }

NS=${GONERO_NETNS:-gonero-bench}
ensure_ns
ns_only_lo || { echo "namespace $NS has interfaces other than lo: refusing to run" >&2; exit 1; }

work=$(mktemp -d /tmp/gonero-wallet-bench.XXXXXX)
pids=()
cleanup() {
  pkill -f -- "$work" 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -z $gonerod_bin ]]; then
  echo "building gonerod" >&2
  go build -o "$work/gonerod" ./cmd/gonerod
  gonerod_bin=$work/gonerod
fi
go build -o "$work/waitproxy" ./bench/waitproxy

if ((${#chains[@]} == 0)); then
  echo "building a regtest chain (bench/lab.sh buildchain, ~1 min)" >&2
  (NETNS=$NS "$LAB" buildchain "$work/small" >"$work/small.log" 2>&1) \
    || { tail -20 "$work/small.log" >&2; exit 1; }
  echo "building a heavy chain of $heavy_txs transactions (bench/lab.sh buildheavy, ~5 min)" >&2
  (NETNS=$NS "$LAB" buildheavy "$work/heavy" "$heavy_txs" >"$work/heavy.log" 2>&1) \
    || { tail -20 "$work/heavy.log" >&2; exit 1; }
  chains=("$work/small" "$work/heavy")
fi

# rpc PORT METHOD PARAMS: a JSON-RPC call inside the namespace; prints the result object, fails on an error.
rpc() {
  local out
  out=$(in_ns curl -s --max-time 900 "http://127.0.0.1:$1/json_rpc" -H 'Content-Type: application/json' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":\"0\",\"method\":\"$2\",\"params\":${3:-{\}}}") || { echo "call $2 on port $1 failed" >&2; return 1; }
  python3 -c 'import json,sys; a=json.loads(sys.argv[1]);
if "error" in a: sys.exit("%s: %s" % (sys.argv[2], a["error"]))
print(json.dumps(a["result"]))' "$out" "$2"
}
field() { python3 -c 'import json,sys; v=json.loads(sys.argv[1]); [v:=v[k] for k in sys.argv[2:]]; print(v)' "$@"; }

wait_rpc() { # PORT PID WHAT
  for _ in $(seq 1 600); do
    in_ns curl -s --max-time 2 "http://127.0.0.1:$1/json_rpc" -d '{"jsonrpc":"2.0","id":"0","method":"get_version"}' >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { echo "$3 exited" >&2; return 1; }
    sleep 0.2
  done
  echo "$3 did not answer" >&2; return 1
}

start_wallet() { # DAEMON_PORT WALLET_PORT DIR -> pid in $wallet_pid
  mkdir -p "$3/ringdb"
  in_ns monero-wallet-rpc --daemon-address "127.0.0.1:$1" --trusted-daemon --rpc-bind-ip 127.0.0.1 \
    --rpc-bind-port "$2" --disable-rpc-login --wallet-dir "$3" --shared-ringdb-dir "$3/ringdb" \
    --log-file "$3/wallet-rpc.log" --log-level 0 --non-interactive --no-dns >"$3/stdout" 2>&1 &
  wallet_pid=$!
  pids+=("$wallet_pid")
  wait_rpc "$2" "$wallet_pid" "monero-wallet-rpc"
}
# stop_port PORT: stop the process serving RPC on PORT (ip netns exec forks, so the background job's pid is
# not the server's own).
stop_port() {
  pkill -f -- "--rpc-bind-port $1( |$)" 2>/dev/null || true
  for _ in $(seq 1 100); do pgrep -f -- "--rpc-bind-port $1( |$)" >/dev/null || return 0; sleep 0.1; done
  pkill -9 -f -- "--rpc-bind-port $1( |$)" 2>/dev/null || true
}

now() { date +%s.%N; }
median() { python3 -c 'import statistics,sys; print("%.3f" % statistics.median(map(float, sys.argv[1:])))' "$@"; }

printf '\n%-14s %6s %6s | %-26s | %-28s | %s\n' "" "" "" "refresh, s" "waiting on the daemon, s" "wallet's own work, s"
printf '%-14s %6s %6s | %8s %8s %8s | %9s %9s %8s | %8s %8s\n' chain blocks txs gonerod monerod ratio gonerod monerod ratio gonerod monerod
port=38900
for chain in "${chains[@]}"; do
  name=$(basename "$chain")
  # The chain's first wallet (alice, or w1 for a heavy chain) and its seed.
  wallet=$(cd "$chain/wallets" && ls | grep -v '\.' | grep -v '^wrpc' | sort | head -1)
  rm -rf "$work/g" "$work/m" "$work/seedw"; mkdir -p "$work/seedw"
  in_ns "$gonerod_bin" import --regtest --fixed-difficulty 1 --data-dir "$work/g" --input-file "$chain/blockchain.raw" \
    >"$work/import.log" 2>&1 || { tail "$work/import.log" >&2; exit 1; }
  cp -a "$chain/node1" "$work/m"
  gport=$((port)); mport=$((port + 2)); wport=$((port + 4)); gproxy=$((port + 5)); mproxy=$((port + 6))
  in_ns "$gonerod_bin" --regtest --fixed-difficulty 1 --data-dir "$work/g" --offline --no-zmq --log-level warn \
    --rpc-bind-port "$gport" >"$work/gonerod.log" 2>&1 &
  gpid=$!; pids+=("$gpid")
  mpid=$(NETNS=$NS "$LAB" start -d "$work/m" -r "$mport" -p $((mport + 1)))
  pids+=("$mpid")
  wait_rpc "$gport" "$gpid" gonerod
  ginfo=$(rpc "$gport" get_info); minfo=$(rpc "$mport" get_info)
  [[ $(field "$ginfo" top_block_hash) == $(field "$minfo" top_block_hash) ]] \
    || { echo "$name: gonerod and monerod serve different chains" >&2; exit 1; }
  height=$(field "$ginfo" height); txs=$(field "$ginfo" tx_count)
  # The wallets reach each daemon through waitproxy, which sums the time they wait on it.
  in_ns "$work/waitproxy" -listen "127.0.0.1:$gproxy" -daemon "127.0.0.1:$gport" & pids+=($!)
  in_ns "$work/waitproxy" -listen "127.0.0.1:$mproxy" -daemon "127.0.0.1:$mport" & pids+=($!)
  waited() { in_ns curl -s --max-time 5 "http://127.0.0.1:$1/.waitproxy" | sed 's/.*wait_seconds=//'; }
  for p in $gproxy $mproxy; do
    for _ in $(seq 1 100); do waited "$p" >/dev/null 2>&1 && break; sleep 0.1; done
  done

  cp "$chain/wallets/$wallet" "$chain/wallets/$wallet.keys" "$work/seedw/"
  start_wallet "$mport" "$wport" "$work/seedw"
  rpc "$wport" open_wallet "{\"filename\":\"$wallet\",\"password\":\"\"}" >/dev/null
  seed=$(field "$(rpc "$wport" query_key '{"key_type":"mnemonic"}')" key)
  stop_port "$wport"

  gtimes=(); mtimes=(); gwaits=(); mwaits=(); want=""
  for r in $(seq 1 "$runs"); do
    order=(g m); ((r % 2 == 0)) && order=(m g)
    for d in "${order[@]}"; do
      dport=$gproxy; [[ $d == m ]] && dport=$mproxy
      wdir="$work/w-$d-$r"; mkdir -p "$wdir"
      # Restored against no daemon (a closed port): restoring may start a refresh of its own, which must
      # not be the one timed. Then the daemon is set and the refresh timed.
      start_wallet "$((port + 9))" "$wport" "$wdir"
      rpc "$wport" restore_deterministic_wallet "{\"filename\":\"r\",\"password\":\"\",\"seed\":\"$seed\",\"restore_height\":0,\"autosave_current\":false}" >/dev/null
      rpc "$wport" auto_refresh '{"enable":false}' >/dev/null
      rpc "$wport" set_daemon "{\"address\":\"127.0.0.1:$dport\",\"trusted\":true}" >/dev/null
      waited "$dport" >/dev/null   # reset the proxy's count
      t0=$(now)
      rpc "$wport" refresh '{"start_height":0}' >/dev/null
      t1=$(now)
      wt=$(waited "$dport")
      got="$(field "$(rpc "$wport" get_height)" height) $(field "$(rpc "$wport" get_balance '{"all_accounts":true}')" balance)"
      stop_port "$wport"; rm -rf "$wdir"
      [[ -z $want ]] && want=$got
      [[ $got == "$want" ]] || { echo "$name: wallet through $d sees height/balance $got, other runs $want" >&2; exit 1; }
      dt=$(python3 -c "print($t1 - $t0)")
      if [[ $d == g ]]; then gtimes+=("$dt"); gwaits+=("$wt"); else mtimes+=("$dt"); mwaits+=("$wt"); fi
    done
  done
  gm=$(median "${gtimes[@]}"); mm=$(median "${mtimes[@]}"); gw=$(median "${gwaits[@]}"); mw=$(median "${mwaits[@]}")
  printf '%-14s %6s %6s | %8s %8s %7.2fx | %9s %9s %7.2fx | %8.3f %8.3f\n' "$name" "$height" "$txs" "$gm" "$mm" \
    "$(python3 -c "print($mm / $gm)")" "$gw" "$mw" "$(python3 -c "print($mw / $gw)")" \
    "$(python3 -c "print($gm - $gw)")" "$(python3 -c "print($mm - $mw)")"
  echo "  runs: gonerod ${gtimes[*]} (waits ${gwaits[*]}); monerod ${mtimes[*]} (waits ${mwaits[*]}); wallet $wallet sees height/balance $want" >&2
  pkill -f -- "-listen 127.0.0.1:$gproxy" >/dev/null 2>&1 || true; pkill -f -- "-listen 127.0.0.1:$mproxy" >/dev/null 2>&1 || true
  stop_port "$gport"
  NETNS=$NS "$LAB" stop "$mpid" >/dev/null 2>&1 || true
  port=$((port + 10))
done
