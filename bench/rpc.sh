#!/usr/bin/env bash
# RPC throughput: gonerod vs monerod, same chain, same machine, one run, interleaved.
#
# Usage: bench/rpc.sh [-d SECONDS] [-c "16 64"] [-m "METHODS"] [--profile] [options]
#   -d SECONDS        measured duration of each wrk run (default 10)
#   -w SECONDS        warm-up before each measured run, not reported (default 2)
#   -c "LIST"         connection counts (default "16 64"); wrk uses 1 thread for 1 connection, else 2
#   -m "LIST"         methods (default: getblockheaderbyheight getblock getlastblockheader get_info
#                     get_block_count /get_height /getblocks.bin; also getblockheaderbyhash). JSON-RPC
#                     methods are POSTed to /json_rpc, paths ("/...") directly; /getblocks.bin is a
#                     wallet's idle refresh (short history: top, genesis), skipped while gonerod does not
#                     serve it
#   --profile         also record a CPU profile of gonerod (perf, cpu-clock sampling with call graphs)
#                     during extra 64-connection get_info and getblockheaderbyheight runs (not the
#                     measured ones: perf itself costs CPU); the data is kept in a temp dir
#   --chain FILE      export file to serve (default: testdata/regtest/blockchain.raw, 300 blocks)
#   --gonerod BIN     benchmark this gonerod binary instead of building ./cmd/gonerod
#   --port-base N     ports N (monerod p2p), N+1 (monerod rpc), N+2 (gonerod rpc), N+3 (ceiling)
#                     (default 38590)
#   --nice N          run the servers and wrk at this nice value (default 0; negative needs root)
#   --cpus MODE       split (default): each server runs on CPU 0 alone and wrk (1 thread) on CPU 1
#                     alone, as a client on another host would: the client never takes CPU from the
#                     server it measures, and latency is the server's, not the OS scheduler's. Go
#                     sets GOMAXPROCS from the affinity (1), monerod keeps its thread pools on its
#                     one core: both servers get the same single core.
#                     shared: the servers and wrk (2 threads) share every core. More threads than
#                     cores then put the OS's time slices (ms) into every p99, the bare ceiling
#                     server's included
#   --wait-idle S     before measuring, wait up to S seconds for other processes to use < 20% of one
#                     core (default 60; 0: do not wait)
#   --retries N       measure a cell again (after --wait-idle) when other processes used > 25% of one
#                     core during it, up to N times (default 2); rows still disturbed are marked
#
# What it does: imports the chain into monerod (monero-blockchain-import) and gonerod (gonerod import),
# starts both with their default RPC limits, checks they serve the same chain and answer every
# benchmarked request with HTTP 200 (and a "result" for JSON-RPC), then for each method and connection
# count runs wrk (keep-alive) against gonerod and then monerod, each after a warm-up. It also measures
# the machine's ceiling: bench/rpc/benchtool's bare fasthttp server answering a fixed body of the size
# of gonerod's getblockheaderbyheight answer, with the same headers. Prints one table (req/s, p50/p99
# latency, server CPU, ratio), the ceiling and gonerod's share of it, gonerod's RSS under load, and each
# method's ratio against the targets (>= 2x monerod, >= 5x on get_info, p99 <= monerod's, header
# methods >= 70% of the ceiling).
#
# Client addresses: every wrk connection comes from 127.0.0.1, as from one client host. Both servers
# admit 25 connections per private address (--rpc-max-connections-per-private-ip) and close the rest
# at once; wrk reconnects those in a loop. At 64 connections 39 are refused over and over: the
# "refused" column counts the refused connects wrk saw (its read errors), and the figures are what the
# 25 admitted connections got meanwhile. The ceiling server has no limits: it is measured at 16 and at
# 25 connections (what 64 from one address amount to).
#
# Network: monerod, gonerod, the ceiling server and wrk run only inside the network namespace
# $GONERO_NETNS (default gonero-bench), which has loopback alone. Needs root, monerod,
# monero-blockchain-import, wrk, curl, jq, go (unless --gonerod), and perf for --profile. Every process
# started here is stopped on exit, error or Ctrl-C.
#
# Caveat printed with the results: the servers and wrk share this machine's cores; anything else
# running at the same time (reported as "other cpu%") lowers and scatters the numbers.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-bench}

# ---- options -------------------------------------------------------------------------------------
duration=10 warmup=2 conns_list="16 64" profile=0 nice_level=0 cpus_mode=split port_base=38590 wait_idle=60 retries=2
methods_default="getblockheaderbyheight getblock getlastblockheader get_info get_block_count /get_height /getblocks.bin"
methods_all="$methods_default getblockheaderbyhash"
methods_list=$methods_default
chain_file=$root/testdata/regtest/blockchain.raw
gonerod_bin=
quiet_limit=20     # % of one core other processes may use for the machine to count as quiet
disturbed_limit=25 # % of one core other processes may use during a cell before it is repeated

while (($#)); do
  case "$1" in
    -d) duration=${2:?-d needs seconds}; shift 2 ;;
    -w) warmup=${2:?-w needs seconds}; shift 2 ;;
    -c) conns_list=${2:?-c needs a list}; shift 2 ;;
    -m) methods_list=${2:?-m needs a list}; shift 2 ;;
    --profile) profile=1; shift ;;
    --chain) chain_file=${2:?}; shift 2 ;;
    --gonerod) gonerod_bin=${2:?}; shift 2 ;;
    --port-base) port_base=${2:?}; shift 2 ;;
    --nice) nice_level=${2:?}; shift 2 ;;
    --cpus) cpus_mode=${2:?}; shift 2 ;;
    --wait-idle) wait_idle=${2:?}; shift 2 ;;
    --retries) retries=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) unknown_arg "$1" ;;
  esac
done

[[ $duration =~ ^[1-9][0-9]*$ ]] || die "-d must be a positive whole number of seconds"
[[ $warmup =~ ^[0-9]+$ ]] || die "-w must be a whole number of seconds"
[[ $nice_level =~ ^-?[0-9]+$ ]] || die "--nice must be an integer"
[[ $cpus_mode == shared || $cpus_mode == split ]] || die "--cpus must be shared or split"
[[ $wait_idle =~ ^[0-9]+$ ]] || die "--wait-idle must be a whole number of seconds"
[[ $retries =~ ^[0-9]+$ ]] || die "--retries must be a whole number"
check_port_base "$port_base"
read -r -a conns <<<"$conns_list"
read -r -a methods <<<"$methods_list"
((${#conns[@]} > 0)) || die "-c: no connection counts"
((${#methods[@]} > 0)) || die "-m: no methods"
for c in "${conns[@]}"; do [[ $c =~ ^[1-9][0-9]*$ ]] && ((c <= 1000)) || die "-c: '$c' is not a connection count (1..1000)"; done
for m in "${methods[@]}"; do [[ " $methods_all " == *" $m "* ]] || die "-m: unknown method '$m' (known: $methods_all)"; done
[[ -f $chain_file ]] || die "chain file $chain_file not found"
chain_file=$(cd "$(dirname "$chain_file")" && pwd)/$(basename "$chain_file")
# the connection count the targets are judged at, and --profile records at: 64, else the largest given
target_conns=$(printf '%s\n' "${conns[@]}" | sort -n | tail -1)
[[ " ${conns[*]} " == *" 64 "* ]] && target_conns=64

m_p2p=$port_base m_rpc=$((port_base + 1)) g_rpc=$((port_base + 2)) c_rpc=$((port_base + 3))

# ---- state used by cleanup -----------------------------------------------------------------------
work= profdir= gonerod_pid= monerod_pid= ceiling_pid= perf_pid=
profiles=() # "method conns datafile" of each finished profile
skipped=()  # paths gonerod does not serve yet
declare -A ceiling_measured=() # connection counts whose ceiling was measured (in a header cell)
answer_size=0

# cleanup stops everything this script started, whatever way it ends (normal exit, error, Ctrl-C).
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [[ -n $fg_pid ]] && kill -TERM "$fg_pid" 2>/dev/null && wait "$fg_pid" 2>/dev/null
  [[ -n $perf_pid ]] && kill -TERM "$perf_pid" 2>/dev/null && wait "$perf_pid" 2>/dev/null
  stop_gonerod
  [[ -n $ceiling_pid ]] && kill -TERM "$ceiling_pid" 2>/dev/null && wait "$ceiling_pid" 2>/dev/null
  stop_monerod
  [[ -n $work ]] && rm -rf "$work"
  # a profile directory without a finished profile is of no use
  [[ -n $profdir && ${#profiles[@]} -eq 0 ]] && rm -rf "$profdir"
  exit "$rc"
}
on_exit cleanup

# ---- preflight -----------------------------------------------------------------------------------
preflight() {
  need_root
  # one benchmark at a time: two would share the cores (and could race for the ports below)
  exec 9<"$0" # (the servers are started with fd 9 closed: the lock must not outlive this script)
  flock -n 9 || die "another bench/rpc.sh is running (it holds a lock on $0)"
  need_tools "monerod and its tools: apt-get install -y monero" ip monerod monero-blockchain-import curl jq ss
  command -v wrk >/dev/null || die "wrk not found: apt-get install -y wrk"
  [[ -n $gonerod_bin ]] || command -v go >/dev/null || die "go not found (or pass --gonerod BIN)"
  command -v go >/dev/null || die "go not found (it builds bench/rpc/benchtool)"
  if ((profile)); then
    command -v perf >/dev/null || die "--profile needs perf: apt-get install -y linux-perf"
    # Hardware counters are often missing in VMs ("perf stat -e instructions" says <not supported>);
    # the cpu-clock software event samples just as well, so only that has to work.
    perf record -q -e cpu-clock -g -o /dev/null -- true >/dev/null 2>&1 \
      || die "--profile: 'perf record -e cpu-clock -g' does not work here (kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)); a gonerod built with a pprof endpoint would be the alternative"
  fi
  # a loopback-only namespace; create it if needed
  ensure_ns
  local p
  for p in "$m_p2p" "$m_rpc" "$g_rpc" "$c_rpc"; do
    if port_busy "$p"; then
      die "port $p is already in use in namespace $NS (another benchmark running? try --port-base)"
    fi
  done
}

# ---- setup ---------------------------------------------------------------------------------------
build_tools() {
  [[ -n $gonerod_bin ]] || note "building gonerod from $root"
  gonerod_to "$bindir/gonerod" # a copy of --gonerod: the profile (perf report) needs it after this run
  go_build "$work/benchtool" ./bench/rpc/benchtool
}

import_chains() {
  note "importing $(basename "$chain_file") into monerod (monero-blockchain-import verifies everything: ~15 s for 300 blocks)"
  # it writes its log to the working directory: run it from the temp dir
  run_in "$work" ip netns exec "$NS" monero-blockchain-import --regtest --fixed-difficulty 1 --data-dir "$work/m" \
      --input-file "$chain_file" >"$work/monero-import.out" 2>&1 \
    || { tail -n 20 "$work/monero-import.out" >&2; die "monero-blockchain-import failed"; }
  note "importing into gonerod"
  run_in "$work" "$gonerod_bin" import --regtest --fixed-difficulty 1 --data-dir "$work/g" --input-file "$chain_file" \
      >"$work/gonerod-import.out" 2>&1 \
    || { tail -n 20 "$work/gonerod-import.out" >&2; die "gonerod import failed"; }
}

# niced prefixes the servers' and wrk's command lines when --nice is set (children inherit the nice
# value, so monerod-lab's monerod does too). An array, not a function: a function run with & would be
# a subshell, and $! would then not be the server's (or wrk's) pid.
niced=()
((nice_level != 0)) && niced=(nice -n "$nice_level")
# With --cpus split the servers (niced) and wrk (client) are pinned to different CPUs; affinity is
# inherited, so monerod-lab's monerod is pinned too.
client=("${niced[@]}")
if [[ $cpus_mode == split ]]; then
  niced=(taskset -c 0 "${niced[@]}")
  client=(taskset -c 1 "${client[@]}")
fi

start_servers() {
  note "starting monerod (rpc 127.0.0.1:$m_rpc in namespace $NS)"
  run_in "$work" "${niced[@]}" env NETNS="$NS" "$LAB" start -d "$work/m" -r "$m_rpc" -p "$m_p2p" -t 120 \
      >"$work/monerod-lab.pid" 2>"$work/monerod-lab.out" 9<&- \
    || { cat "$work/monerod-lab.out" >&2; die "monerod did not come up"; }
  monerod_pid=$(<"$work/monerod-lab.pid")
  note "starting gonerod (rpc 127.0.0.1:$g_rpc in namespace $NS)"
  # `ip netns exec` execs gonerod, so $! is gonerod's pid. --offline as monerod-lab's monerod: a node
  # without peers is otherwise not synchronized, and getlastblockheader answers BUSY
  "${niced[@]}" ip netns exec "$NS" "$gonerod_bin" --regtest --fixed-difficulty 1 --offline --no-zmq --data-dir "$work/g" \
    --rpc-bind-port "$g_rpc" </dev/null >"$work/gonerod.log" 2>&1 9<&- &
  gonerod_pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    if ! kill -0 "$gonerod_pid" 2>/dev/null; then
      tail -n 20 "$work/gonerod.log" >&2
      gonerod_pid=
      die "gonerod exited before its RPC answered"
    fi
    in_ns curl -s -m 2 "http://127.0.0.1:$g_rpc/get_height" 2>/dev/null | grep -q '"status": *"OK"' && return 0
    sleep 0.1
  done
  tail -n 20 "$work/gonerod.log" >&2
  die "gonerod did not answer /get_height on 127.0.0.1:$g_rpc within 30 s"
}

# servers_alive dies with the server's log tail if one of them has gone.
servers_alive() {
  kill -0 "$gonerod_pid" 2>/dev/null || { tail -n 20 "$work/gonerod.log" >&2; gonerod_pid=; die "gonerod died"; }
  kill -0 "$monerod_pid" 2>/dev/null || { tail -n 20 "$work/m/monerod.log" >&2; die "monerod died"; }
}

# ---- requests ------------------------------------------------------------------------------------
# request_body METHOD KEY: the same JSON-RPC body rpc/rpc.lua sends (KEY: height or hash)
request_body() {
  case "$1" in
    getblockheaderbyheight|getblock) printf '{"jsonrpc":"2.0","id":"0","method":"%s","params":{"height":%d}}' "$1" "$2" ;;
    getblockheaderbyhash) printf '{"jsonrpc":"2.0","id":"0","method":"%s","params":{"hash":"%s"}}' "$1" "$2" ;;
    *) printf '{"jsonrpc":"2.0","id":"0","method":"%s"}' "$1" ;;
  esac
}

# rpc PORT BODY OUTFILE -> prints the HTTP status code; the response body goes to OUTFILE
rpc() {
  in_ns curl -s -m 10 -o "$3" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data "$2" "http://127.0.0.1:$1/json_rpc" || true
}

# post_path PORT PATH OUTFILE -> HTTP status of the request rpc.lua sends to PATH
post_path() {
  if [[ $2 == *.bin ]]; then
    in_ns curl -s -m 10 -o "$3" -w '%{http_code}' -H 'Content-Type:' --data-binary "@$work/getblocks.body" \
      "http://127.0.0.1:$1$2" || true
  else
    in_ns curl -s -m 10 -o "$3" -w '%{http_code}' -H 'Content-Type: application/json' --data '{}' \
      "http://127.0.0.1:$1$2" || true
  fi
}

# fetch_chain learns the chain height and all block hashes, and checks both nodes serve the same chain.
fetch_chain() {
  local code
  for port in "$m_rpc" "$g_rpc"; do
    code=$(rpc "$port" "$(request_body get_info)" "$work/info.$port")
    [[ $code == 200 ]] && jq -e '.result.height' "$work/info.$port" >/dev/null \
      || die "get_info on port $port failed (HTTP $code): $(head -c 300 "$work/info.$port")"
  done
  height=$(jq -r '.result.height' "$work/info.$m_rpc")
  local gh mt gt
  gh=$(jq -r '.result.height' "$work/info.$g_rpc")
  mt=$(jq -r '.result.top_block_hash' "$work/info.$m_rpc")
  gt=$(jq -r '.result.top_block_hash' "$work/info.$g_rpc")
  [[ $height == "$gh" && $mt == "$gt" ]] \
    || die "the nodes serve different chains: monerod height $height top $mt, gonerod height $gh top $gt"
  # hashes from monerod in one request (gonerod need not implement get_block_headers_range)
  code=$(rpc "$m_rpc" "{\"jsonrpc\":\"2.0\",\"id\":\"0\",\"method\":\"get_block_headers_range\",\"params\":{\"start_height\":0,\"end_height\":$((height - 1))}}" "$work/range.json")
  [[ $code == 200 ]] || die "get_block_headers_range on monerod failed (HTTP $code)"
  jq -r '.result.headers[].hash' "$work/range.json" >"$work/hashes" || die "cannot parse monerod's get_block_headers_range"
  (($(wc -l <"$work/hashes") == height)) || die "got $(wc -l <"$work/hashes") hashes for $height blocks"
  "$work/benchtool" getblocks-body -top "$mt" -genesis "$(head -1 "$work/hashes")" -height "$height" >"$work/getblocks.body" \
    || die "benchtool getblocks-body failed"
}

# sanity_check: every benchmarked method, on both servers, at the first, middle and last block,
# must answer HTTP 200 with a "result" whose status is OK and no "error"; the header methods must
# name the block that was asked for. Paths must answer 200 (JSON ones with status OK). A path gonerod
# does not serve yet (404) is dropped from the run with a note.
sanity_check() {
  local m port key h code out kept=()
  for m in "${methods[@]}"; do
    if [[ $m == /* ]]; then
      code=$(post_path "$g_rpc" "$m" "$work/sanity.out")
      if [[ $code == 404 ]]; then
        note "gonerod does not serve $m yet: left out"
        skipped+=("$m")
        continue
      fi
      for port in "$g_rpc" "$m_rpc"; do
        code=$(post_path "$port" "$m" "$work/sanity.out")
        [[ $code == 200 ]] || die "sanity: $m on $(server_name "$port") answered HTTP $code: $(head -c 300 "$work/sanity.out")"
        if [[ $m != *.bin ]]; then
          jq -e '.status == "OK"' "$work/sanity.out" >/dev/null || die "sanity: $m on $(server_name "$port"): $(head -c 300 "$work/sanity.out")"
        fi
      done
      kept+=("$m")
      continue
    fi
    for port in "$g_rpc" "$m_rpc"; do
      for h in 0 $((height / 2)) $((height - 1)); do
        case "$m" in
          getblockheaderbyhash) key=$(sed -n "$((h + 1))p" "$work/hashes") ;;
          *) key=$h ;;
        esac
        out=$work/sanity.json
        code=$(rpc "$port" "$(request_body "$m" "$key")" "$out")
        [[ $code == 200 ]] || die "sanity: $m on $(server_name "$port") answered HTTP $code: $(head -c 300 "$out")"
        jq -e '(.result.status == "OK") and (has("error") | not)' "$out" >/dev/null \
          || die "sanity: $m on $(server_name "$port") did not return a result: $(head -c 300 "$out")"
        case "$m" in
          getblockheaderbyheight|getblockheaderbyhash|getblock)
            [[ $(jq -r '.result.block_header.hash' "$out") == "$(sed -n "$((h + 1))p" "$work/hashes")" ]] \
              || die "sanity: $m on $(server_name "$port") for block $h returned another block" ;;
        esac
      done
    done
    kept+=("$m")
  done
  methods=("${kept[@]}")
  ((${#methods[@]} > 0)) || die "no method left to measure"
  # the ceiling answers a body of the size of gonerod's getblockheaderbyheight answer
  rpc "$g_rpc" "$(request_body getblockheaderbyheight $((height / 2)))" "$work/header.json" >/dev/null
  answer_size=$(stat -c %s "$work/header.json")
}

server_name() { if [[ $1 == "$g_rpc" ]]; then echo gonerod; else echo monerod; fi; }

start_ceiling() {
  "${niced[@]}" ip netns exec "$NS" "$work/benchtool" ceiling -addr "127.0.0.1:$c_rpc" -size "$answer_size" \
    </dev/null >"$work/ceiling.log" 2>&1 9<&- &
  ceiling_pid=$!
  local i
  for ((i = 0; i < 100; i++)); do
    in_ns curl -s -m 1 -o /dev/null "http://127.0.0.1:$c_rpc/json_rpc" && return 0
    sleep 0.1
  done
  die "the ceiling server did not come up: $(tail -5 "$work/ceiling.log")"
}

# ---- measuring -----------------------------------------------------------------------------------
clk_tck=$(getconf CLK_TCK)

# sys_cpu -> "busy total" ticks over all CPUs since boot
sys_cpu() { awk '/^cpu /{t = 0; for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6, t; exit}' /proc/stat; }
# children_cpu -> CPU seconds of the waited-for children of this shell so far. `times` must run in
# this shell, not in a $(...) subshell (whose children are not ours), hence the file.
children_cpu() {
  times >"$work/times"
  awk 'NR == 2 {
    n = split($0, f, " "); s = 0
    for (i = 1; i <= n; i++) { split(f[i], a, "m"); sub(/s$/, "", a[2]); s += a[1] * 60 + a[2] }
    print s }' "$work/times"
}

# run_wrk PORT METHOD CONNS SECONDS OUTFILE: one wrk run inside the namespace; waits for it in a way
# Ctrl-C can interrupt (run_in: cleanup then stops wrk).
run_wrk() {
  local port=$1 method=$2 c=$3 secs=$4 out=$5 threads=2
  ((c == 1)) && threads=1
  [[ $cpus_mode == split ]] && threads=1
  local url=http://127.0.0.1:$port/json_rpc
  [[ $method == /* ]] && url=http://127.0.0.1:$port$method
  run_in "$work" "${client[@]}" ip netns exec "$NS" wrk -t"$threads" -c"$c" -d"${secs}s" --timeout 5s --latency \
    -s "$here/rpc/rpc.lua" "$url" -- "$method" "$height" "$work/hashes" "$work/getblocks.body" \
    >"$out" 2>&1
}

# measure SERVER METHOD CONNS: warm-up run, then the measured run; stores
# "rps p50_us p99_us server_cpu% other_cpu% errors wrk_cpu%" in result[SERVER|METHOD|CONNS].
declare -A result=()
measure() {
  local server=$1 method=$2 c=$3 port pid
  case $server in
    gonerod) port=$g_rpc pid=$gonerod_pid ;;
    monerod) port=$m_rpc pid=$monerod_pid ;;
    ceiling) port=$c_rpc pid=$ceiling_pid ;;
  esac
  ((warmup > 0)) && { run_wrk "$port" "$method" "$c" "$warmup" "$work/warmup.out" || true; }
  local s0 s1 p0 p1 w0 w1 out=$work/wrk.$server.${method//\//_}.$c.out
  read -r -a s0 < <(sys_cpu); p0=$(proc_cpu "$pid"); children_cpu >"$work/w0"; w0=$(<"$work/w0")
  run_wrk "$port" "$method" "$c" "$duration" "$out" || true
  children_cpu >"$work/w1"; p1=$(proc_cpu "$pid"); read -r -a s1 < <(sys_cpu); w1=$(<"$work/w1")
  local rss
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0) # kB, at the end of the run
  servers_alive
  local line
  line=$(grep '^WRKRESULT ' "$out" || true)
  if [[ -z $line ]]; then
    note "wrk gave no result for $server $method c=$c:"; sed 's/^/    /' "$out" >&2
    result[$server|$method|$c]="- - - - - wrk-failed - - -"
    return
  fi
  # CPU shares in percent of one core: the server; everything else busy on the machine but wrk
  local ncpu
  ncpu=$(nproc)
  result[$server|$method|$c]=$(awk -v l="$line" -v p0="$p0" -v p1="$p1" -v w0="$w0" -v w1="$w1" \
      -v b0="${s0[0]}" -v t0="${s0[1]}" -v b1="${s1[0]}" -v t1="${s1[1]}" -v hz="$clk_tck" -v n="$ncpu" \
      -v c="$c" -v rss="${rss:-0}" 'BEGIN {
    k = split(l, f, " "); for (i = 2; i <= k; i++) { split(f[i], kv, "="); v[kv[1]] = kv[2] }
    secs = v["duration_us"] / 1e6
    srv = (p1 - p0) / hz / secs * 100
    busy = (t1 > t0) ? (b1 - b0) / (t1 - t0) * n * 100 : 0    # all CPUs, percent of one core
    other = busy - srv - (w1 - w0) / secs * 100; if (other < 0) other = 0
    # above 25 connections from one address the excess is refused (closed at once): wrk sees
    # those as connect/read/write errors and reconnects; they are counted apart
    refused = 0
    if (c > 25) { refused = v["err_connect"] + v["err_read"] + v["err_write"]; v["err_connect"] = v["err_read"] = v["err_write"] = 0 }
    err = v["err_connect"] + v["err_read"] + v["err_write"] + v["err_status"] + v["err_timeout"]
    errs = err ? sprintf("connect=%d,read=%d,write=%d,status=%d,timeout=%d", v["err_connect"], v["err_read"], v["err_write"], v["err_status"], v["err_timeout"]) : "0"
    printf "%.0f %d %d %.0f %.0f %s %.0f %d %d", v["rps"], v["p50_us"], v["p99_us"], srv, other, errs, (w1 - w0) / secs * 100, refused / secs, rss }')
}

# profile_run METHOD CONNS: an extra gonerod run with perf attached (not part of the table)
profile_run() {
  local method=$1 c=$2 data=$profdir/perf-$1-c$2.data
  note "profiling gonerod: $method at $c connections"
  ((warmup > 0)) && { run_wrk "$g_rpc" "$method" "$c" "$warmup" "$work/warmup.out" || true; }
  # perf records the pid while `sleep` runs; start it a little before wrk and let it last a little longer
  perf record -q -e cpu-clock -F 997 -g -p "$gonerod_pid" -o "$data" -- sleep $((duration + 1)) \
    >"$profdir/perf-$method.log" 2>&1 &
  perf_pid=$!
  sleep 0.3
  run_wrk "$g_rpc" "$method" "$c" "$duration" "$profdir/wrk-$method-c$c.out" || true
  wait "$perf_pid" || true
  perf_pid=
  profiles+=("$method $c $data")
}

# Other jobs on the machine take their CPU from whichever server is being measured. Before the first
# run and before repeating a disturbed cell, wait (bounded by --wait-idle) for a quiet machine.
background_load() { # -> % of one core used by everything during 2 s (the servers are idle then)
  local a b
  read -r -a a < <(sys_cpu); sleep 2; read -r -a b < <(sys_cpu)
  awk -v b0="${a[0]}" -v t0="${a[1]}" -v b1="${b[0]}" -v t1="${b[1]}" -v n="$(nproc)" \
    'BEGIN { printf "%.0f", (t1 > t0) ? (b1 - b0) / (t1 - t0) * n * 100 : 0 }'
}
wait_quiet() { # sets $background
  local waited=0
  background=$(background_load)
  while ((background > quiet_limit && waited < wait_idle)); do
    ((waited == 0)) && note "other processes use ${background}% of one core; waiting up to ${wait_idle} s for them"
    sleep 3; waited=$((waited + 5))
    background=$(background_load)
  done
  if ((background > quiet_limit)); then note "warning: other processes use ${background}% of one core; going on"; fi
}
# cell_other METHOD CONNS -> the larger other% of the cell's two runs
cell_other() {
  local -a g mo
  read -r -a g <<<"${result[gonerod|$1|$2]}"
  read -r -a mo <<<"${result[monerod|$1|$2]}"
  awk -v a="${g[4]}" -v b="${mo[4]}" 'BEGIN { a += 0; b += 0; print (a > b) ? a : b }'
}


# ---- report --------------------------------------------------------------------------------------
header() {
  local cpu rev
  cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
  rev=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
  [[ -n $(cd "$root" && git status --porcelain --untracked-files=no 2>/dev/null) ]] && rev="$rev + uncommitted changes"
  echo "gonerod vs monerod JSON-RPC throughput ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo "  gonerod: $("$gonerod_bin" version 2>/dev/null) (tree $rev);  monerod: $(monerod --version 2>/dev/null | sed 's/^Monero //')"
  echo "  chain: $(basename "$chain_file"), $height blocks, both nodes agree on the top block $(jq -r '.result.top_block_hash' "$work/info.$m_rpc" | cut -c1-16)..."
  if [[ $cpus_mode == split ]]; then
    echo "  machine: $(nproc) cores ($cpu). --cpus split: each server alone on CPU 0 (gonerod's GOMAXPROCS"
    echo "    is 1), wrk alone on CPU 1, as a client on another host; the servers never compete with wrk."
    echo "  load: POST /json_rpc (or the path), HTTP keep-alive, wrk 1 thread; ${warmup} s warm-up,"
  else
    echo "  machine: $(nproc) cores ($cpu). Both servers AND wrk share these $(nproc) cores: wrk's CPU is"
    echo "    taken from the server it measures, so absolute numbers are lower than on a separate client."
    echo "  load: POST /json_rpc (or the path), HTTP keep-alive, wrk 1 thread at 1 connection, else 2; ${warmup} s warm-up,"
  fi
  echo "    then ${duration} s measured per cell; gonerod then monerod for each cell. Heights rotate over all $height blocks."
  echo "  clients: every connection from 127.0.0.1; both servers run with their default limits (25 per private"
  echo "    address): above 25 connections the excess is refused and wrk reconnects it in a loop (refused/s)."
  ((${#skipped[@]})) && echo "  left out (gonerod does not serve them yet): ${skipped[*]}"
  ((nice_level != 0)) && echo "  nice: servers and wrk at nice $nice_level"
  echo "  background CPU load before the first run (other processes): ${first_background}% of one core"
  echo "  cpu% = server CPU in % of one core (max $(($(nproc) * 100))); other% = CPU used by anything but the server and wrk"
  echo "  (the larger of the two runs); latency in microseconds."
}

print_table() {
  local fmt="%-22s %5s | %9s %7s %7s %4s %7s | %9s %7s %7s %4s %7s | %6s %6s\n"
  printf "$fmt" "method" "conns" "gonerod/s" "p50 us" "p99 us" "cpu%" "refus/s" "monerod/s" "p50 us" "p99 us" "cpu%" "refus/s" "g/m" "other%"
  printf '%.0s-' {1..132}; echo
  local m c g mo ratio other disturbed=0
  local -a notes=()
  for m in "${methods[@]}"; do
    for c in "${conns[@]}"; do
      read -r -a g <<<"${result[gonerod|$m|$c]}"
      read -r -a mo <<<"${result[monerod|$m|$c]}"
      ratio=$(awk -v a="${g[0]}" -v b="${mo[0]}" 'BEGIN { if (a ~ /^[0-9]/ && b ~ /^[0-9]/ && b > 0) printf "%.2fx", a / b; else print "-" }')
      other=$(cell_other "$m" "$c")
      # a row where something else took more than a quarter of a core is marked: its numbers are suspect
      if ((other > disturbed_limit)); then other="$other*"; disturbed=1; fi
      printf "$fmt" "$m" "$c" "${g[0]}" "${g[1]}" "${g[2]}" "${g[3]}" "${g[7]}" "${mo[0]}" "${mo[1]}" "${mo[2]}" "${mo[3]}" "${mo[7]}" "$ratio" "$other"
      if [[ ${g[5]} != 0 ]]; then notes+=("gonerod $m c=$c: wrk errors ${g[5]}"); fi
      if [[ ${mo[5]} != 0 ]]; then notes+=("monerod $m c=$c: wrk errors ${mo[5]}"); fi
    done
  done
  # wrk's own CPU use: whatever it takes, the server being measured cannot have
  local k key
  for k in gonerod monerod; do
    for key in "${!result[@]}"; do
      if [[ $key == "$k|"* ]]; then echo "${key##*|} ${result[$key]}"; fi
    done | awk -v k="$k" '$8 ~ /^[0-9]/ { s += $8; n++ }
      END { if (n) printf "  wrk CPU while measuring %s: %.0f%% of one core on average\n", k, s / n }'
  done
  if ((disturbed)); then
    echo "  * other processes used more than ${disturbed_limit}% of one core during this row (also after $retries repeat(s)): suspect"
  fi
  local n
  for n in "${notes[@]}"; do echo "  ! $n"; done
}

# print_ceiling: the bare server's rate and gonerod's share of it for the header methods
print_ceiling() {
  echo
  echo "ceiling: bare fasthttp server (bench/rpc/benchtool), fixed ${answer_size}-byte body with gonerod's headers"
  echo "  (measured between gonerod and monerod in the first header method's cells; 64 connections from one"
  echo "  address are 25 admitted ones, so the ceiling is measured at 25):"
  local c cc cl g m
  for c in "${conns[@]}"; do
    cc=$c; ((cc > 25)) && cc=25
    read -r -a cl <<<"${result[ceiling|ceiling|$cc]}"
    printf "  %3d connections (%2d admitted): %9s req/s  p50 %6s us  p99 %7s us  cpu %s%%\n" "$c" "$cc" "${cl[0]}" "${cl[1]}" "${cl[2]}" "${cl[3]}"
    for m in "${methods[@]}"; do
      case $m in getblockheaderbyheight|getblockheaderbyhash|getlastblockheader) ;; *) continue ;; esac
      read -r -a g <<<"${result[gonerod|$m|$c]}"
      awk -v m="$m" -v a="${g[0]}" -v b="${cl[0]}" 'BEGIN { if (a ~ /^[0-9]/ && b ~ /^[0-9]/ && b > 0)
        printf "      gonerod %-22s %5.1f%% of the ceiling (target >= 70%%)  %s\n", m, a / b * 100, (a / b >= 0.7) ? "MET" : "NOT MET" }'
    done
  done
}

# print_rss: gonerod's resident memory at the end of each loaded run
print_rss() {
  local key max=0 r hwm
  for key in "${!result[@]}"; do
    [[ $key == gonerod\|* ]] || continue
    read -r -a r <<<"${result[$key]}"
    [[ ${r[8]} =~ ^[0-9]+$ ]] && ((r[8] > max)) && max=${r[8]}
  done
  hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$gonerod_pid/status" 2>/dev/null || echo "?")
  echo
  echo "gonerod memory under load: RSS up to $((max / 1024)) MiB at the end of a run; peak RSS (VmHWM) $((${hwm:-0} / 1024)) MiB"
}

print_targets() {
  echo
  echo "targets (gonerod req/s / monerod req/s; p99 latency gonerod vs monerod):"
  local m target g mo c
  for c in "${conns[@]}"; do
    for m in "${methods[@]}"; do
      target=2; [[ $m == get_info ]] && target=5
      read -r -a g <<<"${result[gonerod|$m|$c]}"
      read -r -a mo <<<"${result[monerod|$m|$c]}"
      awk -v m="$m" -v c="$c" -v a="${g[0]}" -v b="${mo[0]}" -v pa="${g[2]}" -v pb="${mo[2]}" -v t="$target" 'BEGIN {
        if (!(a ~ /^[0-9]/ && b ~ /^[0-9]/ && b > 0)) { printf "  %-22s %3d  no result\n", m, c; exit }
        r = a / b
        printf "  %-22s %3d  %6.2fx  target >= %dx  %-7s  p99 %7d vs %7d us  %s\n", m, c, r, t, (r >= t) ? "MET" : "NOT MET",
          pa, pb, (pa <= pb) ? "MET" : "NOT MET" }'
    done
  done
}

# perf_top DATA N REPORT-OPTIONS...: the first N entries of perf report, without headers and padding.
# perf gets SIGPIPE when head has enough; that is not an error (pipefail would make it one).
perf_top() {
  local data=$1 n=$2; shift 2
  { perf report -i "$data" --stdio --sort sym -g none "$@" 2>/dev/null || true; } \
    | grep -v -e '^#' -e '^[[:space:]]*$' | sed -e 's/[[:space:]]*$//' -e 's/^/    /' | head -n "$n" || true
}

print_profiles() {
  ((profile)) || return 0
  echo
  if ((${#profiles[@]} == 0)); then
    echo "profile: none recorded (needs get_info or getblockheaderbyheight in -m)"
    return
  fi
  local p method c data rps
  for p in "${profiles[@]}"; do
    read -r method c data <<<"$p"
    rps=$(sed -n 's/^WRKRESULT .*rps=\([0-9.]*\).*/\1/p' "$profdir/wrk-$method-c$c.out")
    echo "profile: gonerod, $method at $c connections ($rps req/s while perf sampled at ~1 kHz), $data"
    echo "  self time, top 25 (perf report --no-children --sort sym):"
    perf_top "$data" 25 --no-children --percent-limit 0.5
    echo "  including callees, top 25 (perf report --children --sort sym):"
    perf_top "$data" 25 --children --percent-limit 2
    echo "  including callees, gonero's own functions only:"
    { perf_top "$data" 200 --children --percent-limit 1 | grep 'gonero/gonero' | head -n 15; } || true
  done
  echo "  If [k] pvm_irq_enable (or another *irq_enable) leads: that is the guest kernel re-enabling interrupts."
  echo "  cpu-clock sampling in a VM charges kernel time spent with interrupts off (loopback TCP send/receive,"
  echo "  softirqs) to that point, so read it as \"kernel networking\", not as one hot function."
  echo "  (more: perf report -i FILE --stdio; the gonerod binary is kept beside the data in $profdir)"
}

# ---- main ----------------------------------------------------------------------------------------
preflight
work=$(mktemp -d /tmp/gonero-rpcbench.XXXXXX)
bindir=$work
if ((profile)); then
  profdir=$(mktemp -d /tmp/gonero-rpcprofile.XXXXXX)
  bindir=$profdir # perf report needs the binary after $work is gone
fi
build_tools
import_chains
start_servers
fetch_chain
sanity_check
note "both nodes serve the same $height-block chain and answer all ${#methods[@]} methods"

wait_quiet
first_background=$background

start_ceiling
# is_header METHOD: the methods whose answer the ceiling's body stands for; their cells measure the
# ceiling between gonerod and monerod, so that the three see the same machine
is_header() { case $1 in getblockheaderbyheight|getblockheaderbyhash|getlastblockheader) return 0 ;; esac; return 1; }
header_cells=0
for m in "${methods[@]}"; do is_header "$m" && header_cells=1; done
if ((!header_cells)); then # no header method: measure the ceiling once per connection count
  for c in "${conns[@]}"; do
    cc=$c; ((cc > 25)) && cc=25
    note "  ceiling, $cc connection(s)"
    measure ceiling ceiling "$cc"
  done
fi
cells=$((${#methods[@]} * ${#conns[@]}))
note "measuring $cells cells x 2 servers x $((warmup + duration)) s = about $((cells * 2 * (warmup + duration) / 60 + 1)) min (more if cells are repeated)"
for m in "${methods[@]}"; do
  for c in "${conns[@]}"; do
    for ((attempt = 0; attempt <= retries; attempt++)); do
      if ((attempt == 0)); then note "  $m, $c connection(s)"; else note "  $m, $c connection(s): again, other processes were busy (repeat $attempt)"; fi
      measure gonerod "$m" "$c"
      if is_header "$m" && [[ -z ${ceiling_measured[$c]:-} ]]; then
        cc=$c; ((cc > 25)) && cc=25
        measure ceiling ceiling "$cc"
        ceiling_measured[$c]=1
      fi
      measure monerod "$m" "$c"
      (($(cell_other "$m" "$c") <= disturbed_limit)) && break
      if ((attempt < retries)); then wait_quiet; fi
    done
    if ((profile)) && ((c == target_conns)) && [[ $m == get_info || $m == getblockheaderbyheight ]]; then
      profile_run "$m" "$c"
    fi
  done
done

header
echo
kill -TERM "$ceiling_pid" 2>/dev/null && wait "$ceiling_pid" 2>/dev/null
ceiling_pid=

print_table
print_ceiling
print_rss
print_targets
print_profiles
