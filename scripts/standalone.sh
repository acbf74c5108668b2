#!/usr/bin/env bash
# Checks that the repository stands on its own: nothing in it names the
# project's shared tree (../shared), and a copy of its files (tracked and
# new, not ignored) in a fresh temporary directory, with no shared/ folder
# anywhere above it, vets and passes a quick set of tests that read
# testdata/. A minute or two.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "standalone: $*" >&2; exit 1; }

# 1. No code, test or script refers to the shared tree. The READMEs under
#    testdata/ were copied as they were and may name its notes and tools.
mapfile -t files < <(git ls-files --cached --others --exclude-standard | grep -v '^testdata/' | grep -v '^scripts/standalone\.sh$')
hits=$(grep -nIE '\.\./shared|/work/shared|GONERO_SHARED|shared/(tools|testdata|docs)' "${files[@]}" 2>/dev/null || true)
[[ -z $hits ]] || fail "references to the shared tree remain:"$'\n'"$hits"

# 2. A copy with no shared/ above it.
tmp=$(mktemp -d /tmp/gonero-standalone.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for d in "$tmp" $(p=$tmp; while [[ $p != / ]]; do p=$(dirname "$p"); echo "$p"; done); do
  [[ ! -e $d/shared ]] || fail "$d/shared exists: the copy would not be standalone"
done
mkdir -p "$tmp/repo"
# (a file deleted in the work tree but still tracked is left out)
git ls-files --cached --others --exclude-standard -z | while IFS= read -r -d '' f; do
  if [[ -e $f ]]; then printf '%s\0' "$f"; fi
done | tar --null -T - -cf - | tar -xf - -C "$tmp/repo"
cd "$tmp/repo"
[[ -f go.mod && -f testdata/regtest/blockchain.raw ]] || fail "the copy lacks go.mod or testdata/"

# GONERO_FRESH_CHAIN and the like would point outside the copy: not here.
unset GONERO_FRESH_CHAIN
go vet ./...
go test -count=1 \
  -run 'TestWalletCapturesReplay|TestReplayCapturedAnswers|TestRoundTripCapturedBodies|TestMainnetCryptoNightBlocks|TestMainnetBlockFiles|TestMainnetTxFiles|TestCLSAGOxideVector|TestRegtestExportMatchesMonerod' \
  ./rpc ./epeejson ./consensus ./cryptonote ./ringct ./chainexport
echo "standalone: a copy in $tmp/repo passes without the shared tree"
