#!/usr/bin/env bash
# The chain store at mainnet scale: grows one synthetic store through several sizes and measures gonerod on it.
#
# Usage: bench/scale.sh [options]
#   --sizes "LIST"        chain heights to measure at, ascending (default "1000 10000 100000 1000000 4000000")
#   --scale F             multiplier of every block's transaction count in the generator (default 0.05; see below)
#   --batch N             blocks per store transaction while generating (default 500: gonerod import's and P2P
#                         sync's batch, importer.DefaultBatch); each batch's commit latency is recorded
#   --probe N             at each size, also commit N batches of --probe-batch blocks of one fixed shape (mainnet's
#                         recent blocks, whatever the height), then pop them again (default 100; 0: none): the same
#                         work at every size, where the growth's own batches change with the era
#   --probe-batch N       blocks per probe batch (default 100)
#   --commit-only         only grow the store and report the commit latency table (no gonerod, no reads; no root)
#   --dir DIR             keep the store in DIR (default: a temp dir, deleted at exit). An existing store there is
#                         grown further, so a measured 4 M store can be measured again without regenerating it
#   -d SECONDS            duration of each latency measurement (default 10)
#   -c N                  wrk connections (default 1: latency without client-side queueing; 1 wrk thread)
#   --writer-interval D   gonerod's regtest miner (the writer) pauses D between blocks (default 10ms, about 100
#                         blocks/s, a syncing node's order; 0: as fast as it can, ~1,000 small blocks/s)
#   --no-writer           measure without the writer
#   --stats               after generating, print every bucket's keys, bytes in use and allocated (reads the whole
#                         file: minutes at 4 M)
#   --compare "FILES"     only compare the store size of monerod and gonerod on these export files
#                         (monero-blockchain-import and gonerod import, both regtest --fixed-difficulty 1) and exit
#   --extrapolate         only estimate the store's size at mainnet's real transaction counts (F=1), beside the floor,
#                         for a full and a pruned node, and exit: one sample store per era (--sample-blocks blocks each,
#                         shaped as mainnet's blocks of that era through scalegen -era-offset, -scale 1); per era its
#                         allocated pages per block, its floor per block (bench/storagefloor -floor-store), and the same
#                         sample pruned by a stripe that drops it (scalegen -prune-stripe 2: chaindb.Prune as gonerod
#                         --prune-blockchain calls it, the sample counted below a pruning tip), before and after
#                         `gonerod compact`, beside its pruned floor. A pruned node keeps 1/8 of the chain below the tip
#                         whole (its stripe) and drops the prunable data of the rest, so its bytes per block are 7/8 of
#                         the pruned sample's and 1/8 of the full one's (the 5,500-block tip is negligible at mainnet
#                         scale). Each era's bytes per block are weighted by the era's length up to each height of
#                         --sizes, to 3,090,000 (Feb 2024, where monerod's full LMDB was about 180 GB), to 2,890,000 and
#                         3,260,000 (May 2023 and Oct 2024, monerod's pruned LMDB about 61 and 80-83 GB:
#                         docs/mainnet.md §5.4); then where the full store's bytes go, bucket by bucket, at 3,090,000
#   --sample-blocks N     blocks per era sample of --extrapolate (default 2000)
#   --port N              gonerod's RPC port (default 38710)
#   --nice N              run gonerod, wrk and the store measurement at this nice value (default 0; negative needs
#                         root): on a shared machine the other processes' time slices otherwise make every p99
#   --store-readers N     concurrent readers of the in-process store measurement (default 1)
#
# What it does, per size: bench/scalegen grows the store to that height (mainnet-shaped synthetic blocks written
# straight through chaindb: blobs, metas, tx records, outputs, key images; see bench/scalegen/main.go) and reports
# the append rate and each batch's commit latency (see "Commit latency" below); then gonerod starts on the store (--regtest --offline, RPC on 127.0.0.1) and the script
# measures: start-up time (exec to the first get_info answer), the store's bytes per block, p50/p99/p99.9 of
# getblockheaderbyheight and getblock at random heights [1, height) and at the tip [height-100, height) with wrk
# while gonerod's own regtest miner (--start-mining) appends blocks (bbolt admits one process, so the writer must be
# gonerod itself), how many blocks it appended meanwhile, then (writer stopped) pop_blocks 100 and the re-adding of
# the same 100 blocks by submitblock (each fully verified), checking that the top is the same block again, and RSS.
# Before gonerod, `scalegen -measure` times the store alone (no HTTP): chaindb.Open and chain.Open (the windows of
# 735, 100 and 100,000 blocks), reads of a header (one View, MetaByHeight) and of a block (meta, blob, tx hash list)
# at random heights and at the tip while a goroutine appends a block per fsynced transaction at 100 blocks/s, and
# popping and re-appending the top 100 blocks. Prints both tables at the end.
#
# Commit latency: scalegen commits each batch as chain.AddBatch does (gonerod import, P2P sync): one chaindb.Update
# whose function appends the batch's blocks with Writer.Append, then bbolt's commit; what it leaves out is the chain's
# own checks (consensus, signatures), which the synthetic blocks would not pass and which hold no store page. Per size
# the table shows, over the last 100 growth batches up to that size (mainnet-shaped, so a 100 k batch carries far
# less than a 4 M one) and over the probe batches (the same shape at every size): p50/p99/max of the whole Update, the
# p99 of the commit alone (Update less the appends), the share of the Update time spent in bbolt's page writes and
# fdatasyncs (the writes only copy into the page cache: nearly all of it is the two fdatasyncs of a commit), and the
# MB of blobs and pages written per batch.
#
# --scale: 4 M blocks at mainnet's transaction counts (~28 per recent block, ~50 M transactions, ~270 GB) do not fit
# this machine. Blocks are all there (4 M metas, blobs, hash index entries); each block's transaction count is
# multiplied by F, which is what the latency rows need (the reads are by height). The store's size at F=1 comes
# from --extrapolate: a small store of every era at F=1, weighted by the eras' lengths.
#
# Network: gonerod and monerod run only inside the network namespace $GONERO_NETNS (default gonero-bench), loopback
# alone; gonerod runs --offline. Needs root, wrk, curl, jq, go; --compare also needs monero-blockchain-import.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-bench}
sizes="1000 10000 100000 1000000 4000000" scale=0.05 batch=500 probe=100 probe_batch=100 commit_only=0 dir= dur=10 conns=1 interval=10ms writer=1
stats=0 compare= port=38710 nice_level=0 sreaders=1 extrapolate=0 sample_blocks=2000
while (($#)); do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --probe) probe=$2; shift 2 ;;
    --probe-batch) probe_batch=$2; shift 2 ;;
    --commit-only) commit_only=1; shift ;;
    --dir) dir=$2; shift 2 ;;
    -d) dur=$2; shift 2 ;;
    -c) conns=$2; shift 2 ;;
    --writer-interval) interval=$2; shift 2 ;;
    --no-writer) writer=0; shift ;;
    --stats) stats=1; shift ;;
    --compare) compare=$2; shift 2 ;;
    --extrapolate) extrapolate=1; shift ;;
    --sample-blocks) sample_blocks=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --nice) nice_level=$2; shift 2 ;;
    --store-readers) sreaders=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1" ;;
  esac
done
if ((commit_only)); then
  command -v go >/dev/null || die "go is needed"
else
  for t in wrk curl jq go; do command -v $t >/dev/null || die "$t is needed"; done
  ensure_ns
  ns_only_lo || die "namespace $NS has interfaces other than lo; refusing to run nodes in it"
fi

work=$(mktemp -d /tmp/gonero-scale.XXXXXX)
gpid=
cleanup() {
  if [[ -n $gpid ]] && kill -0 "$gpid" 2>/dev/null; then kill "$gpid"; wait "$gpid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
[[ -n $dir ]] || dir=$work/store
mkdir -p "$dir"

note "building gonerod, scalegen and storagefloor"
(cd "$root" && go build -o "$work/scalegen" ./bench/scalegen && { ((commit_only)) || go build -o "$work/gonerod" ./cmd/gonerod; } &&
  go build -o "$work/storagefloor" ./bench/storagefloor)

# ---- --compare: monerod's LMDB against gonero's bbolt on real chains ---------------------------------------------
if [[ -n $compare ]]; then
  command -v monero-blockchain-import >/dev/null || die "monero-blockchain-import is needed"
  printf '%-28s %7s %6s %11s | %11s %11s %8s | %11s %11s %11s %8s | %6s\n' chain blocks txs raw_B \
    mdb_file_B mdb_du_B mdb_B/blk gonero_file gonero_du_B gonero_pages gon_B/blk ratio
  for f in $compare; do
    m=$work/cmp-m g=$work/cmp-g; rm -rf "$m" "$g"; mkdir -p "$m"
    (cd "$m" && in_ns monero-blockchain-import --regtest --keep-fakechain --fixed-difficulty 1 --offline \
      --disable-dns-checkpoints --check-updates disabled --log-level 0 --data-dir "$m" --input-file "$f" >/dev/null 2>&1) ||
      die "monero-blockchain-import $f failed"
    out=$("$work/gonerod" import --regtest --fixed-difficulty 1 --data-dir "$g" --input-file "$f" 2>&1) ||
      die "gonerod import $f failed: $out"
    blocks=$(grep -o 'chain height [0-9]*' <<<"$out" | awk '{print $3}')
    txs=$(grep -o '([0-9]* transactions)' <<<"$out" | tr -dc 0-9)
    mdb=$m/fake/lmdb/data.mdb gdb=$g/fake/gonero.db
    # pages bbolt has handed out = file minus its free pages: what the data occupies, without the 16 MB growth step
    pages=$("$work/scalegen" -data-dir "$g" -to 1 -stats | awk '$1=="total"{print $3}')
    mdu=$(du -B1 "$mdb" | cut -f1) gdu=$(du -B1 -c "$gdb" "$gdb.idx" 2>/dev/null | tail -1 | cut -f1)
    printf '%-28s %7d %6d %11d | %11d %11d %8.0f | %11d %11d %11d %8.0f | %6.3f\n' "$(basename "$(dirname "$f")")/$(basename "$f")" \
      "$blocks" "$txs" "$(stat -c %s "$f")" "$(stat -c %s "$mdb")" "$mdu" "$(bc -l <<<"$mdu/$blocks")" \
      "$(stat -c %s "$gdb")" "$gdu" "$pages" "$(bc -l <<<"$gdu/$blocks")" "$(bc -l <<<"$gdu/$mdu")"
  done
  echo "ratio = gonero du / monerod du (allocated disk blocks of gonero.db and data.mdb); gonero_pages = bytes of bbolt pages allocated to buckets"
  exit 0
fi

# ---- --extrapolate: bytes per block at F=1, era by era ------------------------------------------------------------
if ((extrapolate)); then
  # era start heights on mainnet (scalegen's shapes change there: v1 tx rate, RingCT, Bulletproofs, CLSAG, BP+)
  eras=(0 1009827 1220516 1685555 2210000 2689608)
  n=$((sample_blocks + 1)) # the sample's blocks, genesis included
  # The pruned sample: pruned on stripe 2, which drops heights 0-4,095 (the sample's) once they lie below the tip.
  # Its pruned floor counts the same blocks as below the tip of a 10 M-block chain.
  pstripe=2
  declare -a store floor pst pstc pfloor fblock ftx fidx
  declare -A bucket # bucket[ERA,NAME]: the full sample's allocated bytes per block
  bnames=()
  printf '%-17s %6s %7s %6s | %9s %9s %5s | %9s %9s %9s %5s\n' era_heights blocks txs tx_B store_B/b floor_B/b st/fl \
    pr_B/b pr_cmp_B/b pfloor_B/b pc/pf
  for i in "${!eras[@]}"; do
    from=${eras[$i]} to=${eras[$((i + 1))]:-4000000}
    d=$work/era-$from db=$work/era-$from/fake/gonero.db; rm -rf "$d"
    out=$("$work/scalegen" -data-dir "$d" -to "$n" -scale 1 -era-offset "$from" -stats)
    txs=$(awk '/^# done/{print $5}' <<<"$out")
    store[i]=$(awk '$1=="total"{print $3}' <<<"$out")
    fl=$("$work/storagefloor" -floor-store "$db" -stripe "$pstripe" -chain-height 10000000)
    get() { awk -v k="$1" '$1==k{print $2}' <<<"$fl"; }
    # shellcheck disable=SC2034 # fblock, ftx and fidx are read by at, through its nameref
    floor[i]=$(get floor) pfloor[i]=$(get pruned_floor) fblock[i]=$(get block_blobs) ftx[i]=$(get tx_blobs) fidx[i]=$(get indexes)
    txb=$(bc -l <<<"$(get tx_blobs)/($(get txs)-$(get blocks))")
    while read -r name _ alloc _; do
      name=${name#bucket_}
      [[ -v "bucket[x,$name]" ]] || { bucket[x,$name]=1; bnames+=("$name"); }
      bucket[$i,$name]=$alloc
    done < <("$work/storagefloor" -store "$db" | grep '^bucket_')
    # prune as gonerod --prune-blockchain does (scalegen -prune-stripe: chaindb.Prune with the sample below a
    # pruning tip), then gonerod compact. pr, before compaction: the full sample's pages plus what pruning changed in
    # the buckets' pages (scalegen's figures with the tip, before and after pruning; free pages are not counted, a
    # growing node reuses them)
    pr=$("$work/scalegen" -data-dir "$d" -to 1 -prune-stripe "$pstripe" | grep '^# pruned:')
    # every v2 tx the pruned floor drops, gonerod's pruning drops too (v1 txs are never pruned)
    grep -q "^# pruned: stripe $pstripe .* txs $(get pruned_txs) " <<<"$pr" ||
      die "era $from: $(get pruned_txs) txs to prune, but $pr"
    pst[i]=$(awk '{for (k = 1; k < NF; k++) v[$k] = $(k+1); print v["alloc_pruned_with_tip"] - v["alloc_with_tip"]}' <<<"$pr")
    pst[i]=$((store[i] + pst[i]))
    in_ns "$work/gonerod" compact --regtest --data-dir "$d" >"$work/compact.log" 2>&1 ||
      { tail -5 "$work/compact.log" >&2; die "gonerod compact failed"; }
    pstc[i]=$("$work/scalegen" -data-dir "$d" -to 1 -stats | awk '$1=="total"{print $3}')
    printf '%-17s %6d %7d %6.0f | %9.0f %9.0f %5.2f | %9.0f %9.0f %9.0f %5.2f\n' "$from-$((to - 1))" "$sample_blocks" "$txs" "$txb" \
      "$(bc -l <<<"${store[$i]}/$n")" "$(bc -l <<<"${floor[$i]}/$n")" "$(bc -l <<<"${store[$i]}/${floor[$i]}")" \
      "$(bc -l <<<"${pst[$i]}/$n")" "$(bc -l <<<"${pstc[$i]}/$n")" "$(bc -l <<<"${pfloor[$i]}/$n")" \
      "$(bc -l <<<"${pstc[$i]}/${pfloor[$i]}")"
    rm -rf "$d"
  done
  echo "txs: the sample's non-coinbase txs, tx_B: their mean blob; store: the buckets' allocated pages; floor: bench/storagefloor"
  echo "-floor-store; pr: the sample pruned on stripe $pstripe (scalegen -prune-stripe: chaindb.Prune, as gonerod --prune-blockchain),"
  echo "pr_cmp: the same after gonerod compact, pfloor: the pruned floor of a stripe that drops the sample"
  # at TOP ARRAY [ARRAY2]: bytes up to height TOP, each era's bytes per block (ARRAY/n) times its blocks below TOP; with
  # ARRAY2, a pruned node's mix: 7/8 of the chain below the tip is other stripes' (ARRAY, dropped), 1/8 its own (ARRAY2, kept)
  at() {
    local top=$1 total=0 i from to pb
    local -n a=$2
    for i in "${!eras[@]}"; do
      from=${eras[$i]} to=${eras[$((i + 1))]:-4000000}
      ((top > to)) || to=$top
      ((to > from)) || continue
      if (($# > 2)); then local -n b=$3; pb="(7*${a[$i]}+${b[$i]})/8/$n"; else pb="${a[$i]}/$n"; fi
      total=$(bc -l <<<"$total + ($to - $from) * $pb")
    done
    echo "$total"
  }
  gb() { bc -l <<<"$1/1000000000"; }
  echo
  echo "mainnet-scale estimates (GB = 1e9 B); pruned: 7/8 of the blocks as the pruned sample, 1/8 whole (the node's own stripe)"
  printf '%9s | %8s %8s %6s %7s | %9s %9s %9s %6s %11s\n' height store_GB floor_GB st/fl ÷monerod \
    pr_GB pr_cmp_GB pfloor_GB pc/pf ÷monerod_pr
  # shellcheck disable=SC2086 # $sizes is a list
  for top in $(printf '%s\n' 2890000 3090000 3260000 $sizes | sort -nu); do
    s=$(at "$top" store) f=$(at "$top" floor)
    p=$(at "$top" pst store) pc=$(at "$top" pstc store) pf=$(at "$top" pfloor floor)
    vm=- vp=-
    ((top == 3090000)) && vm=$(printf '%.2f' "$(bc -l <<<"$(gb "$s")/180")")
    ((top == 2890000)) && vp=$(printf '%.2f' "$(bc -l <<<"$(gb "$pc")/61")")
    ((top == 3260000)) && vp=$(printf '%.2f-%.2f' "$(bc -l <<<"$(gb "$pc")/83")" "$(bc -l <<<"$(gb "$pc")/80")")
    printf '%9d | %8.1f %8.1f %6.2f %7s | %9.1f %9.1f %9.1f %6.2f %11s\n' "$top" "$(gb "$s")" "$(gb "$f")" \
      "$(bc -l <<<"$s/$f")" "$vm" "$(gb "$p")" "$(gb "$pc")" "$(gb "$pf")" "$(bc -l <<<"$pc/$pf")" "$vp"
  done
  echo "monerod (mainnet.md §5.4): full LMDB ~180 GB at ~3,090,000 (Feb 2024); pruned ~61 GB at ~2,890,000 (May 2023),"
  echo "~80-83 GB at ~3,260,000 (Oct 2024) (heights from 3,195,020 on 2024-07-17 at 720 blocks/day); ÷monerod_pr is pr_cmp's"
  echo
  echo "the full store by bucket at 3,090,000 (GB) beside the floor's parts (storagefloor -store on each era's sample)"
  tot=0
  for name in "${bnames[@]}"; do
    declare -a col=()
    # shellcheck disable=SC2034 # col is read by at, through its nameref
    for i in "${!eras[@]}"; do col[i]=${bucket[$i,$name]:-0}; done
    v=$(at 3090000 col)
    tot=$(bc -l <<<"$tot+$v")
    printf '  %-18s %8.2f\n' "$name" "$(gb "$v")"
  done
  printf '  %-18s %8.2f\n' total "$(gb "$tot")"
  printf '  floor: block blobs %.2f, tx blobs %.2f, indexes %.2f, total %.2f\n' "$(gb "$(at 3090000 fblock)")" \
    "$(gb "$(at 3090000 ftx)")" "$(gb "$(at 3090000 fidx)")" "$(gb "$(at 3090000 floor)")"
  exit 0
fi

rpc() { # rpc METHOD [PARAMS]
  in_ns curl -s --max-time 60 "http://127.0.0.1:$port/json_rpc" -H 'Content-Type: application/json' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":\"0\",\"method\":\"$1\",\"params\":${2:-{\}}}"
}
path() { in_ns curl -s --max-time 120 "http://127.0.0.1:$port/$1" -H 'Content-Type: application/json' -d "${2:-{\}}"; }
height() { rpc get_info | jq -r .result.height; }
alice=43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS

start_gonerod() { # start_gonerod WITH_WRITER; sets gpid and startup_ms
  local args=(--regtest --fixed-difficulty 1 --offline --no-zmq --data-dir "$dir" --rpc-bind-port "$port" --log-level warn)
  (($1)) && args+=(--start-mining "$alice" --mining-interval "$interval")
  local t0; t0=$(date +%s%N)
  # ip netns exec execs gonerod in place, so $! is gonerod's pid
  ip netns exec "$NS" nice -n "$nice_level" "$work/gonerod" "${args[@]}" >>"$work/gonerod.log" 2>&1 &
  gpid=$!
  for _ in $(seq 1 6000); do
    if [[ $(rpc get_info 2>/dev/null | jq -r '.result.status // empty' 2>/dev/null) == OK ]]; then
      startup_ms=$(( ($(date +%s%N) - t0) / 1000000 )); return 0
    fi
    kill -0 "$gpid" 2>/dev/null || { tail -20 "$work/gonerod.log" >&2; die "gonerod exited"; }
    sleep 0.02
  done
  die "gonerod did not answer within 120 s"
}
# (this script's own, not lib.sh's: no SIGKILL, a large store is let close however long it takes)
stop_gonerod() { kill "$gpid"; wait "$gpid" 2>/dev/null || true; gpid=; }
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$gpid/status"; }
anon_kb() { awk '/^RssAnon/{print $2}' "/proc/$gpid/status"; }
hwm_kb() { awk '/^VmHWM/{print $2}' "/proc/$gpid/status"; }

wrkrun() { # wrkrun METHOD FROM TO -> "p50 p99 p999 rps requests"
  local out
  out=$(in_ns nice -n "$nice_level" wrk -t1 -c"$conns" -d"${dur}s" --timeout 10s -s "$here/scale/scale.lua" "http://127.0.0.1:$port" -- "$1" "$2" "$3" 7 2>&1 | grep WRKRESULT) ||
    die "wrk $1 failed"
  local e; e=$(grep -o 'err_[a-z]*=[0-9]*' <<<"$out" | awk -F= '{s+=$2} END{print s}')
  ((e == 0)) || die "wrk $1: $out"
  awk '{for(i=1;i<=NF;i++){split($i,a,"="); v[a[1]]=a[2]}; printf "%.2f %.2f %.2f %.0f %d\n", v["p50_us"]/1000, v["p99_us"]/1000, v["p999_us"]/1000, v["rps"], v["requests"]}' <<<"$out"
}

# commit_row SIZE SCALEGEN_OUTPUT: one row of the commit latency table, from scalegen's "# commit growth" and
# "# commit probe" lines ("... batches N update_ms p50 A p99 B max C commit_ms p50 D p99 E max F share% append G
# spill H write+fdatasync I other J MB/batch K pages/batch L")
commit_row() {
  local g p
  g=$(grep '^# commit growth heights' <<<"$2" | sed 's/.*: //' || true) p=$(grep '^# commit probe heights' <<<"$2" | sed 's/.*: //' || true)
  fields() { [[ -n $1 ]] && awk '{printf "%4d %7.1f %7.1f %7.1f %7.1f %6.1f %5s %5s %5.2f %5d", $2, $5, $7, $9, $14, $36, $23"%", $31"%", $27, $29}' <<<"$1" ||
    printf '%4s %7s %7s %7s %7s %6s %5s %5s %5s %5s' - - - - - - - - - -; }
  printf '%9d | %s | %s\n' "$1" "$(fields "$g")" "$(fields "$p")"
}
commit_table=$work/commit_table
printf '%9s | %-69s | %-69s\n' "" "growth: last 100 batches of $batch blocks (mainnet-shaped)" \
  "probe: $probe batches of $probe_batch recent-era blocks" >"$commit_table"
printf '%9s | %4s %7s %7s %7s %7s %6s %5s %5s %5s %5s | %4s %7s %7s %7s %7s %6s %5s %5s %5s %5s\n' height \
  n p50_ms p99_ms max_ms c_p99 own99 fsync wait MB/b pg/b n p50_ms p99_ms max_ms c_p99 own99 fsync wait MB/b pg/b >>"$commit_table"
print_commit_table() {
  echo "per-batch commit latency while the store grows (scalegen, tx counts x$scale, nice $nice_level): p50/p99/max of the"
  echo "whole chaindb.Update (appends + commit), c_p99: the commit alone, own99: the Update less its wait for a CPU (the"
  echo "store's own latency), fsync: share of the Update time in page writes and fdatasyncs, wait: share spent waiting"
  echo "for a CPU, MB/b: block and tx blobs per batch, pg/b: page runs written per batch"
  cat "$commit_table"
}
if ((commit_only)); then
  for size in $sizes; do
    note "generating to height $size (scale $scale)"
    gen=$(nice -n "$nice_level" "$work/scalegen" -data-dir "$dir" -to "$size" -scale "$scale" -batch "$batch" \
      -probe "$probe" -probe-batch "$probe_batch")
    echo "$gen" >&2
    commit_row "$size" "$gen" >>"$commit_table"
  done
  echo
  print_commit_table
  exit 0
fi

table=$work/table
printf '%9s %9s %7s %9s %9s | %-30s %8s %8s %8s %7s | %8s %8s %8s %8s\n' height file_MB B/blk gen_blk/s startup_ms \
  measurement p50_ms p99_ms p999_ms req/s writer_blk pop100_ms readd_ms rss_MB >"$table"
db=$dir/fake/gonero.db
for size in $sizes; do
  note "generating to height $size (scale $scale)"
  gen=$(nice -n "$nice_level" "$work/scalegen" -data-dir "$dir" -to "$size" -scale "$scale" -batch "$batch" \
    -probe "$probe" -probe-batch "$probe_batch" $( ((stats)) && echo -stats))
  echo "$gen" >&2
  genrate=$(awk '/^# done/{print $(NF-1)}' <<<"$gen" | tr -d '(')
  [[ -n $genrate ]] || genrate=-
  commit_row "$size" "$gen" >>"$commit_table"
  note "timing the store alone at height $size"
  sm=$(nice -n "$nice_level" "$work/scalegen" -data-dir "$dir" -to 1 -scale "$scale" -measure "${dur}s" -readers "$sreaders")
  echo "$sm" >&2
  {
    echo "== height $(awk '/^# measure at height/{print $5}' <<<"$sm" | tr -d :): store alone (scalegen -measure, $sreaders reader(s), writer 100 blocks/s, one fsynced tx each)"
    echo "$sm" | grep -v '^# scalegen'
  } >>"$work/store_table"
  start_gonerod "$writer"
  h0=$(height)
  fsize=$(stat -c %s "$db")
  # sanity: the answers are results, not errors, at a random height and at the tip
  for m in getblockheaderbyheight getblock; do
    for hh in $((h0 / 2)) $((h0 - 1)); do
      rpc $m "{\"height\":$hh}" | jq -e .result.status >/dev/null || die "$m at $hh has no result"
    done
  done
  first=1
  for m in /get_height getblockheaderbyheight getblock; do
    for where in random tip; do
      [[ $m == /* && $where == tip ]] && continue
      [[ $m == /* ]] && where=baseline
      if [[ $where == random ]]; then from=1; else from=$((h0 > 101 ? h0 - 100 : 1)); fi
      hb=$(height)
      read -r p50 p99 p999 rps _ < <(wrkrun $m "$from" "$h0")
      ha=$(height)
      if ((first)); then
        printf '%9d %9.0f %7.0f %9s %9d | ' "$h0" "$(bc -l <<<"$fsize/1000000")" "$(bc -l <<<"$fsize/$h0")" "$genrate" "$startup_ms"
        first=0
      else
        printf '%9s %9s %7s %9s %9s | ' "" "" "" "" ""
      fi >>"$table"
      printf '%-30s %8s %8s %8s %7s | %8d\n' "$m $where" "$p50" "$p99" "$p999" "$rps" $((ha - hb)) >>"$table"
      note "$size $m $where: p50 $p50 ms p99 $p99 ms ($((ha - hb)) blocks written meanwhile)"
    done
  done
  # pop 100 and re-add the same 100 blocks (the writer's own, fully valid), writer stopped
  pop_ms=- readd_ms=-
  if ((writer)); then
    path stop_mining >/dev/null
    ht=$(height)
    # the top 100 must be the writer's own (valid) blocks: synthetic ones would not pass submitblock's checks
    if ((ht - h0 >= 100)); then
      top=$(rpc getlastblockheader | jq -r .result.block_header.hash)
      blobs=$work/blobs; : >"$blobs"
      for ((x = ht - 100; x < ht; x++)); do rpc getblock "{\"height\":$x}" | jq -r .result.blob >>"$blobs"; done
      t0=$(date +%s%N)
      path pop_blocks '{"nblocks":100}' | jq -e '.status == "OK"' >/dev/null || die "pop_blocks failed"
      pop_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
      (($(height) == ht - 100)) || die "pop_blocks left height $(height), want $((ht - 100))"
      # one curl process, one keep-alive connection, 100 requests in order (curl --next): the time is gonerod's
      args=(); sep=()
      while read -r b; do
        args+=("${sep[@]}" -s -H 'Content-Type: application/json' "http://127.0.0.1:$port/json_rpc"
          -d "{\"jsonrpc\":\"2.0\",\"id\":\"0\",\"method\":\"submitblock\",\"params\":[\"$b\"]}")
        sep=(--next)
      done <"$blobs"
      t0=$(date +%s%N)
      answers=$(in_ns curl "${args[@]}")
      readd_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
      ok=$(jq -s '[.[] | select(.result.status == "OK")] | length' <<<"$answers")
      ((ok == 100)) || die "submitblock: $ok of 100 blocks accepted"
      [[ $(rpc getlastblockheader | jq -r .result.block_header.hash) == "$top" ]] || die "after re-adding, the top is not $top"
    fi
  fi
  printf '%9s %9s %7s %9s %9s | %-30s %8s %8s %8s %7s | %8s %8s %8s %8.0f (anon %.0f)\n' "" "" "" "" "" "" "" "" "" "" "" "$pop_ms" "$readd_ms" \
    "$(bc -l <<<"$(rss_kb)/1024")" "$(bc -l <<<"$(anon_kb)/1024")" >>"$table"
  stop_gonerod
done
echo
print_commit_table
echo
cat "$work/store_table"
echo
echo "gonerod on a synthetic regtest store (bench/scalegen, tx counts x$scale), wrk -c$conns ${dur}s per row, writer: $( ((writer)) && echo "gonerod --start-mining, --mining-interval $interval" || echo none)"
cat "$table"
echo "/get_height baseline: answered from memory, no store read: what HTTP and this machine's scheduling cost by themselves"
echo "writer_blk: blocks the writer appended during that row; pop100/readd: pop_blocks 100, then submitblock of the same 100 blocks (writer stopped)"
echo "rss_MB: gonerod's resident set at the end (it includes the store's pages mapped by bbolt, which the kernel can drop); anon: its own memory"
