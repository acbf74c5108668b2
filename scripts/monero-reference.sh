#!/usr/bin/env bash
# Installs the reference monerod beside the system's own, and prints the
# folder of its binaries (DIR/bin) on stdout; progress goes to stderr.
#
# Usage: scripts/monero-reference.sh [DIR]
#   DIR defaults to $MONERO_REFERENCE_DIR, else /opt/monero-latest.
#   MONERO_REFERENCE_SUITE picks another Debian suite (default sid).
#   MONERO_REFERENCE_MIRROR picks another Debian mirror, such as a dated
#   snapshot (http://snapshot.debian.org/archive/debian/20260501T000000Z)
#   once the suite has moved past the reference.
#
# The reference is pinned: it is monerodlab.ReferenceVersion (read from
# internal/monerodlab/lab.go, its one definition), and only the Debian package
# monero of that upstream version (0.18.5.3+..., any Debian revision) is
# installed. When the suite carries another version, the script stops with
# one message saying which, rather than installing a monerod every
# cross-check would then refuse. Moving to a new release is done on purpose:
# ReferenceVersion changes, and the new release's differences are checked.
#
# Nothing of the system changes: a minimal Debian root of that suite is made
# in DIR/root (debootstrap), the package is installed there, and every
# DIR/root/usr/bin/monero* program is copied to DIR/bin with its ELF
# interpreter and library path pointed into DIR/root (patchelf), so it runs
# here as DIR/bin/monerod, DIR/bin/monero-wallet-rpc, ...
# An install whose DIR/bin/monerod --version is the reference is reused as it
# is. Needs root and Debian's mirror the first time (a few minutes, about
# 500 MB).
set -euo pipefail
dir=${1:-${MONERO_REFERENCE_DIR:-/opt/monero-latest}}
suite=${MONERO_REFERENCE_SUITE:-sid}
mirror=${MONERO_REFERENCE_MIRROR:-http://deb.debian.org/debian}
root=$dir/root
log() { echo "monero-reference: $*" >&2; }

lab=$(dirname "$0")/../internal/monerodlab/lab.go
ref=$(sed -n 's/^const ReferenceVersion = "\([0-9.]*\)"$/\1/p' "$lab")
[[ -n $ref ]] || { log "no ReferenceVersion constant found in $lab"; exit 1; }

# isref FILE: the monerod --version output in FILE names the reference
# (monerod prints "Monero 'Name' (v0.18.5.3-release)" or "(v0.18.5.3-unknown)").
isref() { grep -qE "\(v${ref//./\\.}(-[^)]*)?\)" "$1"; }

if [[ -x $dir/bin/monerod ]]; then
  have=$(mktemp)
  trap 'rm -f "$have"' EXIT
  if "$dir/bin/monerod" --version >"$have" 2>&1; then
    if isref "$have"; then
      echo "$dir/bin"
      exit 0
    fi
    log "$dir holds $(head -n 1 "$have"), not the reference $ref: installing the reference in its place"
  fi
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
log "making a minimal Debian $suite root in $root (mirror $mirror)"
if ! debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$dir/debootstrap.log" 2>&1; then
  tail -n 5 "$dir/debootstrap.log" >&2
  log "debootstrap failed; its log: $dir/debootstrap.log"
  exit 1
fi
# A dated snapshot's Release files are past their Valid-Until date.
echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99gonero-snapshot"

# The Debian version of the reference: upstream version, then "+..." or
# "-..." (0.18.5.3+~0+20260428-1+b1).
versions=$(chroot "$root" apt-cache madison monero 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' || true)
pin=$(grep -E "^${ref//./\\.}[-+]" <<<"$versions" | head -n 1 || true)
if [[ -z $pin ]]; then
  log "Debian $suite at $mirror has no monero $ref (it has: ${versions//$'\n'/, }); the reference is pinned" \
    "to monerodlab.ReferenceVersion $ref. Either install it from a dated snapshot that still has it" \
    "(MONERO_REFERENCE_MIRROR=http://snapshot.debian.org/archive/debian/YYYYMMDDT000000Z), or move the reference to" \
    "the new release on purpose (ReferenceVersion, and the README's differences after checking it)"
  exit 1
fi
log "installing package monero=$pin in that root"
if ! chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "monero=$pin" >"$dir/apt.log" 2>&1; then
  tail -n 5 "$dir/apt.log" >&2
  log "installing monero=$pin failed; its log: $dir/apt.log"
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
echo "$suite $mirror monero=$pin" >"$dir/suite"
log "$("$dir/bin/monerod" --version)"
echo "$dir/bin"
