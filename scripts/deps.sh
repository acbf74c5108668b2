#!/usr/bin/env bash
# Installs what gonero needs to build and test, only when it is missing:
# librandomx-dev (cgo RandomX), monero (reference monerod and tools for the
# cross-checks), monero-tests (Keccak/tree-hash/difficulty vectors), curl,
# iproute2 (network namespaces), python3 (used by some bench scripts), nginx and
# haproxy (the deployment test runs deploy/'s configurations).
set -euo pipefail
need=()
[[ -f /usr/include/randomx.h ]] || need+=(librandomx-dev)
command -v monerod >/dev/null || need+=(monero)
[[ -d /usr/share/monero/testdata/hash ]] || need+=(monero-tests)
command -v curl >/dev/null || need+=(curl)
command -v ip >/dev/null || need+=(iproute2)
command -v python3 >/dev/null || need+=(python3)
command -v gcc >/dev/null || need+=(gcc)
[[ -x /usr/sbin/nginx ]] || command -v nginx >/dev/null || need+=(nginx)
[[ -x /usr/sbin/haproxy ]] || command -v haproxy >/dev/null || need+=(haproxy)
if ((${#need[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps: missing ${need[*]}; run as root or: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "deps: installing ${need[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
go mod download
