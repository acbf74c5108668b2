#!/usr/bin/env bash
# bench/lab.sh - gonero's lab command (internal/monerodlab/cmd/monerodlab) for the bench scripts: start, stop and
# call a reference monerod, build a regtest chain, all inside the loopback-only namespace $NETNS (default
# $GONERO_NETNS, else gonero-test). Built from the repository on each call (go's build cache makes that quick).
#   bench/lab.sh start [-d DIR -r RPC_PORT -p P2P_PORT --fresh --online ...] [-- monerod args]   -> pid
#   bench/lab.sh stop PID|DIR [GRACE] | rpc PORT METHOD [PARAMS] | buildchain DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TMPDIR:-/tmp}/gonero-monerodlab-$(id -u)
(cd "$root" && go build -o "$bin.$$" ./internal/monerodlab/cmd/monerodlab) && mv -f "$bin.$$" "$bin"
GONERO_NETNS=${NETNS:-${GONERO_NETNS:-gonero-test}} exec "$bin" "$@"
