# shellcheck shell=bash
# bench/lib.sh - the pieces the bench scripts share, sourced after they set `here` (their own directory):
#   here=$(cd "$(dirname "$0")" && pwd)
#   . "$here/lib.sh"
# Plain bash, safe under set -euo pipefail. Messages name the script that sourced this ($0), as before.
# Functions read the caller's settings when they run: NS (the namespace), work, gonerod_bin, gonerod_pid,
# monerod_pid. Sourcing it only defines these (and root, LAB, me); it starts nothing.

: "${here:?bench/lib.sh: set here (the bench directory) before sourcing it}"
root=$(cd "$here/.." && pwd)
LAB=$here/lab.sh
me=${0##*/} # tls.sh, rpc.sh, ...: every message says which script it comes from

die()  { echo "$me: error: $*" >&2; exit 1; }
note() { echo "$me: $*" >&2; }
# usage prints the script's header comment (line 2 up to `set -euo`), the one place its options are written.
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
unknown_arg() { echo "$me: unknown argument: $1" >&2; usage; }

# on_exit FUNC: FUNC runs however the script ends. INT and TERM become exits (130, 143) so that the EXIT
# trap runs once, with the conventional status in $?.
on_exit() {
  # shellcheck disable=SC2064 # FUNC's name, expanded now
  trap "$1" EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

need_root() { (($(id -u) == 0)) || die "needs root (network namespace)"; }

# need_tools HINT TOOL...: dies naming the first TOOL not on the PATH, with HINT (how to get it) if given.
need_tools() {
  local hint=$1 t; shift
  for t in "$@"; do
    command -v "$t" >/dev/null || die "'$t' not found${hint:+ ($hint)}"
  done
}

# check_port_base N: the value of --port-base; the scripts use ports N..N+3.
check_port_base() {
  { [[ $1 =~ ^[0-9]+$ ]] && (($1 >= 1024 && $1 <= 65530)); } || die "--port-base must be 1024..65530"
}

# ---- the network namespace ------------------------------------------------------------------------
# monerod and gonerod must never reach a network: they run only inside $NS, which has loopback alone.
in_ns() { ip netns exec "$NS" "$@"; }
ns_exists() { ip netns list | awk '{print $1}' | grep -qx "$NS"; }
# ensure_ns [MESSAGE]: create $NS if it is missing (made_ns=1 then, for a script that deletes what it
# made), and bring its loopback up. A new namespace has loopback alone.
made_ns=0
# shellcheck disable=SC2120 # MESSAGE is optional
ensure_ns() {
  if ! ns_exists; then
    ip netns add "$NS" || die "${1:-cannot create network namespace $NS}"
    # shellcheck disable=SC2034 # read by the caller
    made_ns=1
  fi
  in_ns ip link set lo up
}
# ns_only_lo: $NS has no interface but lo (an existing namespace may have been given more).
ns_only_lo() { ! in_ns ip -o link | awk -F': ' '{print $2}' | grep -vqx lo; }
# port_busy PORT: something listens on 127.0.0.1:PORT (or any address) inside $NS.
port_busy() { in_ns ss -Hltn "sport = :$1" | grep -q .; }

# ---- processes ------------------------------------------------------------------------------------
# run_in DIR COMMAND...: run COMMAND in DIR and wait for it. It runs in the background and is waited
# for with `wait`, because bash runs no trap while a foreground command runs, and forgets a Ctrl-C
# that the command handled itself (monero-blockchain-import does): this way Ctrl-C and SIGTERM reach
# cleanup at once, and cleanup stops the command ($fg_pid; `exec` keeps the pid the command's own).
fg_pid=
run_in() {
  local dir=$1 rc=0; shift
  (cd "$dir" && exec "$@") &
  fg_pid=$!
  wait "$fg_pid" || rc=$?
  fg_pid=
  return "$rc"
}

# go_build OUT ./PKG: build a package of this repository (through run_in, so Ctrl-C stops it).
go_build() { run_in "$root" go build -o "$1" "$2" || die "go build $2 failed"; }

# gonerod_to FILE: the gonerod to benchmark, at FILE: --gonerod BIN ($gonerod_bin) copied there (a
# binary others may rebuild meanwhile; perf reads it after the run), else ./cmd/gonerod built there.
# Sets gonerod_bin=FILE.
gonerod_to() {
  if [[ -n ${gonerod_bin:-} ]]; then
    [[ -x $gonerod_bin ]] || die "--gonerod $gonerod_bin is not an executable"
    cp "$gonerod_bin" "$1"
  else
    go_build "$1" ./cmd/gonerod
  fi
  gonerod_bin=$1
}

# stop_gonerod sends SIGTERM (graceful shutdown), then SIGKILL if it is still there after 15 s.
stop_gonerod() {
  [[ -n ${gonerod_pid:-} ]] || return 0
  local i
  kill -TERM "$gonerod_pid" 2>/dev/null
  for ((i = 0; i < 150; i++)); do
    kill -0 "$gonerod_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$gonerod_pid" 2>/dev/null && { note "gonerod did not stop on SIGTERM, killing it"; kill -KILL "$gonerod_pid"; }
  wait "$gonerod_pid" 2>/dev/null
  gonerod_pid=
}

# stop_monerod: stop the monerod that bench/lab.sh started on $work/m. It runs in its own session
# (lab.sh starts it with setsid), so it never sees our Ctrl-C: stop it through its pid file even if
# lab.sh was interrupted before printing the pid. For cleanup (set +e).
stop_monerod() {
  if [[ -n ${work:-} && -f $work/m/monerod.pid ]]; then
    NETNS=$NS "$LAB" stop "$work/m" 30 >/dev/null 2>&1
  elif [[ -n ${monerod_pid:-} ]]; then
    NETNS=$NS "$LAB" stop "$monerod_pid" 30 >/dev/null 2>&1
  fi
}

# proc_cpu PID -> user+system CPU ticks of the whole process (all threads), from /proc (the command
# name in field 2 may hold spaces: cut up to its closing parenthesis)
proc_cpu() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
