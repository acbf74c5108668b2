#!/usr/bin/env bash
# Installs the reference monerod (monerodlab.ReferenceVersion: the `monero`
# package of Debian unstable) beside the system's own, and prints the folder
# of its binaries (DIR/bin) on stdout; progress goes to stderr.
#
# Usage: scripts/monero-reference.sh [DIR]
#   DIR defaults to $MONERO_REFERENCE_DIR, else /opt/monero-latest.
#   MONERO_REFERENCE_SUITE picks another Debian suite (default sid).
#
# Nothing of the system changes: a minimal Debian root of that suite is made
# in DIR/root (debootstrap), the package is installed there, and every
# DIR/root/usr/bin/monero* program is copied to DIR/bin with its ELF
# interpreter and library path pointed into DIR/root (patchelf), so it runs
# here as DIR/bin/monerod, DIR/bin/monero-wallet-rpc, ...
# An install whose DIR/bin/monerod --version runs is reused as it is. Needs
# root and Debian's mirror the first time (a few minutes, about 500 MB).
set -euo pipefail
dir=${1:-${MONERO_REFERENCE_DIR:-/opt/monero-latest}}
suite=${MONERO_REFERENCE_SUITE:-sid}
root=$dir/root
log() { echo "monero-reference: $*" >&2; }

if [[ -x $dir/bin/monerod ]] && "$dir/bin/monerod" --version >/dev/null 2>&1; then
  echo "$dir/bin"
  exit 0
fi
[[ $(id -u) -eq 0 ]] || { log "installing into $dir needs root"; exit 1; }

missing=()
for tool in debootstrap patchelf; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >&2
fi

# Start from nothing: a half-made root from an interrupted run is not reused.
rm -rf "$dir"
mkdir -p "$dir/bin"
log "making a minimal Debian $suite root in $root"
if ! debootstrap --variant=minbase "$suite" "$root" http://deb.debian.org/debian >"$dir/debootstrap.log" 2>&1; then
  tail -n 5 "$dir/debootstrap.log" >&2
  log "debootstrap failed; its log: $dir/debootstrap.log"
  exit 1
fi
log "installing package monero in that root"
if ! chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq monero >"$dir/apt.log" 2>&1; then
  tail -n 5 "$dir/apt.log" >&2
  log "installing monero failed; its log: $dir/apt.log"
  exit 1
fi

interp=$root/lib64/ld-linux-x86-64.so.2
rpath=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu
shopt -s nullglob
progs=("$root"/usr/bin/monero*)
((${#progs[@]})) || { log "the package installed no monero* programs"; exit 1; }
for prog in "${progs[@]}"; do
  out=$dir/bin/$(basename "$prog")
  install -m 0755 "$prog" "$out"
  patchelf --set-interpreter "$interp" --force-rpath --set-rpath "$rpath" "$out"
done
echo "$suite" >"$dir/suite"
log "$("$dir/bin/monerod" --version)"
echo "$dir/bin"
