#!/usr/bin/env bash
# Store size and bytes written, gonerod against monerod 0.18.5.3, on the transaction-heavy regtest chain, in one run.
#
# Usage: bench/storage.sh [options]
#   --heavy-dir DIR  the heavy chain (DIR/blockchain.raw, DIR/node1: monerodlab buildheavy's output); built there
#                    once if missing (default /tmp/gonero-storage-heavy; about 15 minutes on a loaded machine)
#   --txs N          its transactions when it is built (default 2000)
#   --extend N       measure the heavy chain followed by N more blocks (mined by a monerod on a copy of DIR/node1,
#                    then exported; built once into DIR-plusN, kept): with N >= 5,600 the heavy chain's
#                    transactions leave the pruning tip, so that the pruned runs prune them (default 0)
#   --stripe S       g-pruned's stripe (1-8) and the pruned floor's (default: the stripe m-pruned chose at random,
#                    when m-pruned ran before it, else 2). Stripe 1 keeps heights 0-4,095 whole: on the extended
#                    chain it prunes nothing, and m-pruned then runs again (up to 4 times) for another stripe
#   --runs "LIST"    what to measure (default "g-full m-full m-pruned g-pruned g-p2p m-p2p"):
#                      g-full / m-full      gonerod import / monero-blockchain-import of DIR/blockchain.raw
#                      g-pruned / m-pruned  the same, then pruned: gonerod --prune-blockchain --offline until it
#                                           answers RPC (it prunes at start-up), then `gonerod compact` (the
#                                           store before and after are both reported); monero-blockchain-prune,
#                                           which copies the full store into a fresh pruned LMDB and swaps it in
#                                           (the old one, lmdb-old, then deleted; its stripe read back with
#                                           prune_blockchain check). Not monero-blockchain-import
#                                           --prune-blockchain: it prunes the store when it opens it, empty, and
#                                           every block it appends is inside the tip then, so nothing is pruned
#                      g-p2p / m-p2p        a fresh gonerod / monerod syncing the chain over P2P from a monerod on
#                                           a copy of DIR/node1 (--add-exclusive-node)
#   --gonerod BIN    the gonerod to measure (default: ./cmd/gonerod built from this tree)
#   --import-args "ARGS"  extra gonerod import flags (e.g. "--batch-blocks 1": a commit per block, as before batching)
#   --fs-size SIZE   each loop file system's size (default 2G; the file is sparse)
#   --port-base N    ports N..N+5 inside the namespace (default 38900)
#
# Each run gets a file system of its own: a sparse file in a temporary directory, attached to a loop device
# (losetup), mkfs.ext4 (inode tables and journal initialised at mkfs, so that no lazy init writes later), mounted
# noatime; the store is the only thing on it. Bytes written are the loop device's sectors written
# (/sys/block/loopN/stat, field 7, x 512), read after `sync` before and after the run: everything that reached the
# device, data, file-system metadata and journal alike. (/proc/PID/io is not used: on this kernel it counts writes
# that never reach the disk, and misses what monerod writes through its memory map.)
# The store size is the store's apparent size and its allocated blocks (du -b, du -B1): gonero.db with its LSM
# directory gonero.db.idx, data.mdb.
# LMDB never shrinks its file either: for monerod's stores the pages in use are reported too (mdb_stat, from
# lmdb-utils, if installed: pages used - free pages); the ratios use the file, as gonerod's do.
# The floor (bench/storagefloor) is the raw block and transaction blobs of the export file plus the indexes the RPC
# needs at their smallest fixed width, counted apart; gonero's store is then broken down by bucket (bytes in use,
# allocated) and free pages. The heavy chain (~360 blocks) is shorter than the pruning tip (5,500 blocks): a pruned
# node keeps every block whole, so without --extend the pruned runs measure what pruning mode costs, not what it
# saves.
# Times are information only: other work shares the machine. Import time ratio = monerod's time / gonerod's.
# Needs root, the monero tools (/opt/monero-latest/bin first on the PATH), go, losetup, mkfs.ext4, curl, jq.
# monerod, its tools and gonerod run only inside the loopback-only namespace $GONERO_NETNS (default
# gonero-storage); loop devices and mounts are removed on exit, Ctrl-C and TERM.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
NS=${GONERO_NETNS:-gonero-storage}
heavydir=/tmp/gonero-storage-heavy txs=2000 runs="g-full m-full m-pruned g-pruned g-p2p m-p2p" fs_size=2G base=38900
gonerod_bin='' import_args='' extend=0 stripe=''
while (($#)); do
  case "$1" in
    --heavy-dir) heavydir=$2; shift 2 ;;
    --txs) txs=$2; shift 2 ;;
    --extend) extend=$2; shift 2 ;;
    --stripe) stripe=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --gonerod) gonerod_bin=$2; shift 2 ;;
    --import-args) import_args=$2; shift 2 ;;
    --fs-size) fs_size=$2; shift 2 ;;
    --port-base) base=$2; shift 2 ;;
    -h|--help) usage ;;
    *) unknown_arg "$1" ;;
  esac
done
check_port_base "$base"
[[ $extend =~ ^[0-9]+$ ]] || die "--extend wants a block count"
[[ -z $stripe || $stripe =~ ^[1-8]$ ]] || die "--stripe wants 1-8"
need_root
export PATH=/opt/monero-latest/bin:$PATH
need_tools "" go losetup mkfs.ext4 mount umount curl jq monerod monero-blockchain-import monero-blockchain-prune
ensure_ns
ns_only_lo || die "namespace $NS has interfaces other than lo; refusing to run nodes in it"

work=$(mktemp -d /tmp/gonero-storage.XXXXXX)
loops=() mounts=() procs=() src_pid=
cleanup() {
  set +e
  local p m d
  for p in "${procs[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  [[ -n $fg_pid ]] && kill "$fg_pid" 2>/dev/null
  stop_monerod
  [[ -n $src_pid ]] && NETNS=$NS "$LAB" stop "$src_pid" 30 >/dev/null 2>&1
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
  for d in "${loops[@]}"; do losetup -d "$d"; done
  rm -rf "$work"
}
on_exit cleanup

# ---- loop file systems ----------------------------------------------------------------------------
# new_fs NAME: a fresh ext4 on its own loop device, mounted at $work/NAME; sets dev and mnt.
new_fs() {
  local img=$work/$1.img
  truncate -s "$fs_size" "$img"
  dev=$(losetup -f --show "$img") || die "losetup failed"
  loops+=("$dev")
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" || die "mkfs.ext4 $dev failed"
  mnt=$work/$1
  mkdir -p "$mnt"
  mount -o noatime "$dev" "$mnt" || die "mount $dev failed"
  mounts+=("$mnt")
  sync
}
# sectors_written DEV: sectors the device has written since it was attached (after a sync).
sectors_written() { sync; awk '{print $7}' "/sys/block/${1#/dev/}/stat"; }
# store_file DIR NAME: the store file NAME under DIR (gonero.db or data.mdb).
store_file() { find "$1" -name "$2" -type f | head -1; }
# store_du FLAG FILE: du FLAG (-b or -B1) of a store: the file, and for gonero.db its LSM directory (gonero.db.idx).
store_du() { local p=("$2"); [[ -d $2.idx ]] && p+=("$2.idx"); du "$1" -c "${p[@]}" | tail -1 | cut -f1; }

# ---- the chain ------------------------------------------------------------------------------------
if [[ ! -s $heavydir/blockchain.raw || ! -d $heavydir/node1 ]]; then
  note "building the heavy chain ($txs transactions) in $heavydir (once; about 15 minutes)"
  go_build "$work/monerodlab" ./internal/monerodlab/cmd/monerodlab
  rm -rf "$heavydir.build"
  GONERO_NETNS=$NS run_in "$root" "$work/monerodlab" buildheavy "$heavydir.build" "$txs" >&2 || die "buildheavy failed"
  mv "$heavydir.build" "$heavydir"
fi
if ((extend > 0)); then
  ext=$heavydir-plus$extend
  if [[ ! -s $ext/blockchain.raw ]]; then
    note "mining $extend blocks on the heavy chain into $ext (once; about 3 blocks a second on a loaded machine)"
    rm -rf "$ext.build"; mkdir -p "$ext.build"
    cp -a "$heavydir/node1" "$ext.build/node1"; rm -f "$ext.build/node1/monerod.pid"
    src_pid=$(NETNS=$NS "$LAB" start -d "$ext.build/node1" -r $((base + 5)) -p $((base + 4))) || die "monerod did not start"
    addr=43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS
    left=$extend
    while ((left > 0)); do
      step=$((left > 500 ? 500 : left))
      NETNS=$NS "$LAB" rpc $((base + 5)) generateblocks "{\"amount_of_blocks\":$step,\"wallet_address\":\"$addr\"}" \
        >/dev/null || die "generateblocks failed"
      left=$((left - step))
    done
    NETNS=$NS "$LAB" stop "$src_pid" 60 >/dev/null 2>&1; src_pid=
    # The store is complete once monerod has stopped; the export reads it.
    run_in "$ext.build" ip netns exec "$NS" monero-blockchain-export --data-dir "$ext.build/node1/fake" \
      --output-file "$ext.build/blockchain.raw" --log-level 0 >"$ext.build/export.log" 2>&1 ||
      die "monero-blockchain-export failed (see $ext.build/export.log)"
    mv "$ext.build" "$ext"
  fi
  heavydir=$ext
fi
file=$heavydir/blockchain.raw
gonerod_to "$work/gonerod"
go_build "$work/storagefloor" ./bench/storagefloor

declare -A F # the floor's figures
while read -r k v; do F[$k]=$v; done < <("$work/storagefloor" -input-file "$file")
# pruned_floor STRIPE: the pruned floor for that stripe
pruned_floor() { "$work/storagefloor" -input-file "$file" -stripe "$1" | awk '$1 == "pruned_floor" {print $2}'; }
note "chain: ${F[blocks]} blocks, ${F[txs]} txs (miner txs included), ${F[outputs]} outputs, ${F[inputs]} inputs"

# ---- the runs -------------------------------------------------------------------------------------
declare -A W S A T # bytes written, store apparent size, store allocated, seconds; by run
declare -A B       # gonero store breakdown lines, by run
declare -A U       # monerod's LMDB pages in use (bytes), by run
now() { date +%s.%N; }
secs() { awk -v s="$1" -v e="$2" 'BEGIN {printf "%.2f", e - s}'; }
rpc_height() { in_ns curl -s -m 2 "127.0.0.1:$1/get_height" | jq -r '.height // 0' 2>/dev/null || echo 0; }

g_import() { # DATADIR
  # shellcheck disable=SC2086 # --import-args is a list of flags
  in_ns "$gonerod_bin" import --regtest --fixed-difficulty 1 --data-dir "$1" --input-file "$file" \
    $import_args >"$work/last.log" 2>&1 || { tail -5 "$work/last.log" >&2; die "gonerod import failed"; }
}
m_import() { # DATADIR [ARGS...]
  local d=$1; shift
  run_in "$work" ip netns exec "$NS" monero-blockchain-import --regtest --keep-fakechain --fixed-difficulty 1 \
    --offline --disable-dns-checkpoints --check-updates disabled --log-level 0 --data-dir "$d" \
    --dangerous-unverified-import 0 --fast-block-sync 0 --input-file "$file" "$@" >"$work/last.log" 2>&1 ||
    { tail -5 "$work/last.log" >&2; die "monero-blockchain-import failed"; }
}
# m_prune DATADIR: monero-blockchain-prune on the full store in DATADIR: it copies it into a fresh LMDB,
# lmdb-pruned, without the prunable data of the blocks past the tip outside its stripe (chosen at random), and swaps
# the two; the old one, lmdb-old, is deleted, as its log tells the operator they may. It has no --regtest: it opens
# the regtest store as mainnet, which changes nothing in what it copies (the tables, byte for byte, but
# txs_prunable).
m_prune() {
  local d=$1/fake
  run_in "$work" ip netns exec "$NS" monero-blockchain-prune --data-dir "$d" --log-level 0 >"$work/prune.log" 2>&1 ||
    { tail -5 "$work/prune.log" >&2; die "monero-blockchain-prune failed"; }
  [[ -d $d/lmdb-old && -s $d/lmdb/data.mdb ]] || die "monero-blockchain-prune left no pruned store in $d/lmdb"
  rm -rf "$d/lmdb-old"
}
# lmdb_in_use FILE: the bytes of the LMDB pages in use in FILE (data.mdb): pages used (the file's high-water mark)
# less the free list's pages, x the page size; "-" without mdb_stat.
lmdb_in_use() {
  command -v mdb_stat >/dev/null || { echo -; return; }
  local d; d=$(dirname "$1")
  { mdb_stat -e "$d" && mdb_stat -f "$d"; } 2>/dev/null |
    awk '/Page size:/ {ps = $3} /Number of pages used:/ {u = $5} /Free pages:/ {f = $3}
         END {if (ps && u) print (u - f) * ps; else print "-"}'
}
# m_stripe DATADIR: the stripe of monerod's pruned store in DATADIR (prune_blockchain check, monerod offline)
m_stripe() {
  local pid seed
  pid=$(NETNS=$NS "$LAB" start -d "$1" -r $((base + 3)) -p $((base + 2))) || die "monerod did not start on $1"
  seed=$(NETNS=$NS "$LAB" rpc $((base + 3)) prune_blockchain '{"check":true}' | jq -r '.result.pruning_seed // 0')
  NETNS=$NS "$LAB" stop "$pid" 30 >/dev/null 2>&1
  ((seed > 0)) || die "monerod's store in $1 is not pruned"
  echo $(((seed & 0x7f) + 1)) # tools::get_pruning_stripe: bits 0-6 hold stripe - 1
}
# g_run DATADIR UNTIL_HEIGHT ARGS...: a gonerod on DATADIR until its RPC reports UNTIL_HEIGHT (0: until it answers)
g_run() {
  local d=$1 want=$2 h; shift 2
  ip netns exec "$NS" "$gonerod_bin" --regtest --fixed-difficulty 1 --no-zmq --data-dir "$d" --rpc-bind-port $((base + 1)) \
    --p2p-bind-ip 127.0.0.1 --p2p-bind-port "$base" --log-level warn "$@" >"$work/gonerod.log" 2>&1 &
  gonerod_pid=$!
  procs+=("$gonerod_pid")
  while :; do
    kill -0 "$gonerod_pid" 2>/dev/null || { tail -5 "$work/gonerod.log" >&2; die "gonerod exited"; }
    h=$(rpc_height $((base + 1)))
    ((h > 0 && h >= want)) && break
    sleep 0.2
  done
  stop_gonerod || true # its exit status after SIGTERM
}
# m_sync DATADIR: a fresh monerod on DATADIR syncing from the source until it has the source's height
m_sync() {
  monerod_pid=$(NETNS=$NS "$LAB" start --fresh -d "$1" -r $((base + 3)) -p $((base + 2)) --online -- \
    --add-exclusive-node "127.0.0.1:$((base + 4))") || die "monerod did not start"
  until (($(rpc_height $((base + 3))) >= want_height)); do sleep 0.2; done
  NETNS=$NS "$LAB" stop "$monerod_pid" 30 >/dev/null 2>&1
  monerod_pid=
}

want_height=${F[blocks]}
declare -A C CA P # after gonerod compact: apparent, allocated; pruned floor by run
m_stripe_got=
# measure RUN: one run on a fresh file system
measure() {
  local r=$1 sf
  new_fs "$r${2:-}"
  w0=$(sectors_written "$dev")
  t0=$(now)
  case $r in
    g-full) g_import "$mnt" ;;
    m-full) m_import "$mnt" ;;
    g-pruned) g_import "$mnt"; g_run "$mnt" 0 --offline --prune-blockchain --prune-blockchain-stripe "$g_stripe" ;;
    m-pruned)
      m_import "$mnt"
      sf=$(store_file "$mnt" data.mdb)
      note "m-pruned: the full import: $((($(sectors_written "$dev") - w0) * 512)) B written," \
        "store $(du -b "$sf" | cut -f1) B ($(du -B1 "$sf" | cut -f1) B allocated, $(lmdb_in_use "$sf") B of pages in use)"
      m_prune "$mnt" ;;
    g-p2p|m-p2p)
      if [[ -z $src_pid ]]; then
        cp -a "$heavydir/node1/." "$work/src"; rm -f "$work/src/monerod.pid"
        src_pid=$(NETNS=$NS "$LAB" start -d "$work/src" -r $((base + 5)) -p $((base + 4)) --online -- \
          --max-connections-per-ip 8) || die "the source monerod did not start"
        t0=$(now)
      fi
      if [[ $r == g-p2p ]]; then
        g_run "$mnt" "$want_height" --add-exclusive-node "127.0.0.1:$((base + 4))"
      else
        m_sync "$mnt"
      fi ;;
    *) die "unknown run $r" ;;
  esac
  t1=$(now)
  w1=$(sectors_written "$dev")
  T[$r]=$(secs "$t0" "$t1")
  W[$r]=$(((w1 - w0) * 512))
  if [[ $r == g-* ]]; then sf=$(store_file "$mnt" gonero.db); else sf=$(store_file "$mnt" data.mdb); fi
  [[ -n $sf ]] || die "$r: no store file under $mnt"
  S[$r]=$(store_du -b "$sf")
  A[$r]=$(store_du -B1 "$sf")
  [[ $r == g-* ]] && B[$r]=$("$work/storagefloor" -store "$sf")
  [[ $r == m-* ]] && U[$r]=$(lmdb_in_use "$sf")
  note "$r: ${T[$r]} s, ${W[$r]} B written, store ${S[$r]} B" \
    "(${A[$r]} B allocated${U[$r]:+, ${U[$r]} B of pages in use})"
  if [[ $r == g-pruned ]]; then
    # gonerod compact gives back the free pages pruning left (measured after the figures above).
    in_ns "$gonerod_bin" compact --regtest --data-dir "$mnt" >"$work/compact.log" 2>&1 ||
      { tail -5 "$work/compact.log" >&2; die "gonerod compact failed"; }
    sf=$(store_file "$mnt" gonero.db)
    C[$r]=$(store_du -b "$sf")
    CA[$r]=$(store_du -B1 "$sf")
    B[$r-compact]=$("$work/storagefloor" -store "$sf")
    note "$r then gonerod compact: store ${C[$r]} B (${CA[$r]} B allocated)"
  fi
}

for r in $runs; do
  case $r in
    m-pruned)
      for try in 1 2 3 4; do
        measure "$r" "$try"
        m_stripe_got=$(m_stripe "$mnt")
        note "m-pruned: monerod chose stripe $m_stripe_got"
        ((extend == 0 || m_stripe_got != 1)) && break
        note "stripe 1 keeps the heavy chain's blocks whole: importing and pruning again"
      done
      P[$r]=$(pruned_floor "$m_stripe_got") ;;
    g-pruned)
      g_stripe=${stripe:-${m_stripe_got:-2}}
      measure "$r"
      P[$r]=$(pruned_floor "$g_stripe") ;;
    *) measure "$r" ;;
  esac
done

# ---- the report -----------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else printf "-"}'; }
mb() { awk -v a="$1" 'BEGIN {printf "%.2f", a / 1e6}'; }
echo
echo "Chain: ${F[blocks]} blocks, ${F[txs]} transactions (miner txs included), ${F[outputs]} outputs, ${F[inputs]} inputs"
echo "Floor: blobs $(mb "${F[blobs]}") MB (blocks $(mb "${F[block_blobs]}"), txs $(mb "${F[tx_blobs]}")) +" \
  "indexes $(mb "${F[indexes]}") MB = $(mb "${F[floor]}") MB"
for r in m-pruned g-pruned; do
  [[ -n ${P[$r]:-} ]] || continue
  st=${m_stripe_got}; [[ $r == g-pruned ]] && st=$g_stripe
  echo "Pruned floor of $r (stripe $st): $(mb "${P[$r]}") MB"
done
echo
echo "| run | time s | written MB | store MB (apparent) | store MB (allocated) | alloc ÷ floor | alloc ÷ monerod's | written ÷ alloc | monerod time ÷ gonerod time |"
echo "|---|---|---|---|---|---|---|---|---|"
for r in $runs; do
  kind=${r#*-}
  fl=${F[floor]}; [[ $kind == pruned ]] && fl=${P[$r]}
  other="m-$kind" vsm="-" speed="-"
  if [[ $r == g-* && -n ${A[$other]:-} ]]; then
    vsm=$(ratio "${A[$r]}" "${A[$other]}")
    speed=$(ratio "${T[$other]}" "${T[$r]}")
  fi
  echo "| $r | ${T[$r]} | $(mb "${W[$r]}") | $(mb "${S[$r]}") | $(mb "${A[$r]}") | $(ratio "${A[$r]}" "$fl") | $vsm | $(ratio "${W[$r]}" "${A[$r]}") | $speed |"
  if [[ -n ${C[$r]:-} ]]; then
    vsm="-"; [[ -n ${A[$other]:-} ]] && vsm=$(ratio "${CA[$r]}" "${A[$other]}")
    echo "| $r, then gonerod compact | - | - | $(mb "${C[$r]}") | $(mb "${CA[$r]}") | $(ratio "${CA[$r]}" "$fl") | $vsm | - | - |"
  fi
done
for r in $runs; do
  [[ $r == m-* && -n ${U[$r]:-} ]] || continue
  echo "$r: LMDB pages in use $(mb "${U[$r]}") MB of the $(mb "${S[$r]}") MB file (mdb_stat: pages used - free pages)"
done
echo
echo "Floor parts (bytes): $(for k in idx_block_hash idx_block_meta idx_block_offset idx_tx_location idx_outputs idx_tx_outputs idx_key_images; do printf '%s=%s ' "$k" "${F[$k]}"; done)"
for r in $runs g-pruned-compact; do
  [[ -n ${B[$r]:-} ]] || continue
  echo
  echo "gonero store of $r by bucket (in use B, allocated B, keys):"
  awk '$1 ~ /^bucket_/ {sub(/^bucket_/, "", $1); printf "  %-18s %10d %10d %8d\n", $1, $2, $3, $4; next} {printf "  %-18s %10d\n", $1, $2}' <<<"${B[$r]}"
done
