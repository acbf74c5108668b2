#!/usr/bin/env bash
# Installs what gonero needs, only when it is missing.
#   deps.sh build   what building needs: Go (on the PATH, not installed here), a C compiler and librandomx-dev
#                   (RandomX through cgo). Without root, a missing package is named and the build stops.
#   deps.sh test    what `make test` needs besides: monero (Debian 12's monerod and wallet, kept beside the
#                   reference that scripts/test.sh installs), monero-tests (Keccak, tree-hash, crypto and
#                   difficulty vectors), curl, iproute2 (network namespaces), python3, nginx and haproxy (the
#                   deployment test runs deploy/'s configurations). Needs root.
set -euo pipefail
mode=${1:-build}
if ! command -v go >/dev/null; then
  echo "deps: Go is not on the PATH (gonero needs Go 1.26: https://go.dev/dl/)" >&2
  exit 1
fi
need=()
command -v gcc >/dev/null || command -v cc >/dev/null || need+=(gcc)
[[ -f /usr/include/randomx.h ]] || need+=(librandomx-dev)
if [[ $mode == test ]]; then
  command -v monerod >/dev/null || [[ -x /usr/bin/monerod ]] || need+=(monero)
  [[ -d /usr/share/monero/testdata/hash ]] || need+=(monero-tests)
  command -v curl >/dev/null || need+=(curl)
  command -v ip >/dev/null || need+=(iproute2)
  command -v python3 >/dev/null || need+=(python3)
  [[ -x /usr/sbin/nginx ]] || command -v nginx >/dev/null || need+=(nginx)
  [[ -x /usr/sbin/haproxy ]] || command -v haproxy >/dev/null || need+=(haproxy)
fi
if ((${#need[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps: missing ${need[*]}; install them (as root: apt-get install -y ${need[*]}) and run again" >&2
    exit 1
  fi
  echo "deps: installing ${need[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
go mod download
