#!/bin/bash
# FCMP++ verification, gonero against the reference (fcmp-oracle's `time`), on the same proofs, interleaved:
# one proof of 1, 2 and 8 inputs (single: median of K runs; batched: K copies in one batch, per proof, median
# of 3) and the nine proofs of the 1..3 × 1..3 grid in one batch. CPU time: gonero's TestTimeLikeOracle reads
# getrusage; the oracle must be built with its Instant reading the thread's CPU clock (docs/benchmarks.md,
# "FCMP++ verification"), or its wall times mean little on a shared machine.
#
#   bench/fcmp.sh [-r ROUNDS] [-k K] [-m M] [-o ORACLE] [GONERO_TEST_BINARY...]
#
# -m M also runs every proof with M copies per batch and prints the marginal cost of a proof in a large batch,
# (M·batch(M) - K·batch(K)) / (M - K): the batch's fixed share (the generators' part of the multiscalar
# multiplications) drops out.
# With no binary, builds ./fcmp/fcmppp's tests from the work tree. Several binaries (e.g. before and after a
# change) are measured in the same rounds. Prints medians over the rounds and the ratios to the reference.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=5 K=10 M=0 ORACLE=${FCMP_ORACLE:-/var/tmp/fcmp-oracle/bin/fcmp-oracle}
while getopts r:k:m:o: opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	k) K=$OPTARG ;;
	m) M=$OPTARG ;;
	o) ORACLE=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	go test -c -o "$work/fcmppp.test" ./fcmp/fcmppp
	bins=("$work/fcmppp.test")
fi
P=testdata/fcmp/proofs
# The oracle times every case of a file: the 1×1 proof is case 0 of the grid, on its own.
jq -c '.[0]' $P/fcmp_pp_prove_1-3x1-3.json >"$work/1x1.json"
cp $P/fcmp_pp_prove_2x2.json "$work/2x2.json"
cp $P/fcmp_pp_prove_8x1_s02.json "$work/8x1.json"
cp $P/fcmp_pp_prove_8x8.json "$work/8x8.json"
cp $P/fcmp_pp_prove_1-3x1-3.json "$work/grid.json"
python3 - "$ROUNDS" "$K" "$ORACLE" "$work" "$PWD/fcmp/fcmppp" "$M" "${bins[@]}" <<'EOF'
import os, statistics, subprocess, sys, time
R, K, O, W, D, M = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])
bins = [os.path.abspath(b) for b in sys.argv[7:]]
names = [os.path.basename(b) for b in bins]
cases = ['1x1', '2x2', '8x1', '8x8']
res, loads = {}, []
def add(k, v): res.setdefault(k, []).append(v)
def gonero(b, env):
    e = dict(os.environ); e.update(env)
    return subprocess.run([b, '-test.run', 'TestTimeLikeOracle'], cwd=D, env=e, capture_output=True, text=True, check=True).stdout
for r in range(R):
    for c in cases:
        f = '%s/%s.json' % (W, c)
        loads.append(float(open('/proc/loadavg').read().split()[0]))
        print('# round %d %s load %.1f %s' % (r, c, loads[-1], time.strftime('%T')), file=sys.stderr, flush=True)
        l = subprocess.run([O, 'time', '--reps', K, f], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1].split()
        add((c, 'reference'), (float(l[5]), float(l[7])))
        for b, n in zip(bins, names):
            l = [x for x in gonero(b, {'FCMP_TIME': f, 'FCMP_TIME_REPS': K}).splitlines() if x.startswith('gonero')][0].split()
            add((c, n), (float(l[5]), float(l[9])))
        if M:
            l = subprocess.run([O, 'time', '--reps', str(M), f], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1].split()
            add((c, 'reference', 'M'), float(l[7]))
            for b, n in zip(bins, names):
                l = [x for x in gonero(b, {'FCMP_TIME': f, 'FCMP_TIME_REPS': str(M)}).splitlines() if x.startswith('gonero')][0].split()
                add((c, n, 'M'), float(l[9]))
    g = W + '/grid.json'
    out = subprocess.run([O, 'time', '--reps', '2', g], capture_output=True, text=True, check=True).stdout
    add(('grid', 'reference'), float([x for x in out.splitlines() if x.startswith('# all')][0].split(':')[1].split()[0]))
    for b, n in zip(bins, names):
        out = gonero(b, {'FCMP_TIME': g, 'FCMP_TIME_REPS': '1', 'FCMP_TIME_ALL': '1'})
        add(('grid', n), float([x for x in out.splitlines() if x.startswith('gonero all')][0].split(':')[1].split()[0]))
med = statistics.median
print('# load average during the run: min %.1f, median %.1f, max %.1f' % (min(loads), med(loads), max(loads)))
print('# CPU ms, medians of %d rounds; single: median of %s runs; batched: %s copies in one batch, per proof' % (R, K, K))
for c in cases:
    n = int(c.split('x')[0])
    rs, rb = med(x[0] for x in res[(c, 'reference')]), med(x[1] for x in res[(c, 'reference')])
    print('%-4s %-14s single %8.2f  batched/proof %7.2f  batched/input %6.2f' % (c, 'reference', rs, rb, rb / n))
    for nm in names:
        s, b = med(x[0] for x in res[(c, nm)]), med(x[1] for x in res[(c, nm)])
        print('%-4s %-14s single %8.2f  batched/proof %7.2f  batched/input %6.2f  ratio: single %.2f, batched %.2f'
              % (c, nm, s, b, b / n, s / rs, b / rb))
if M:
    k = int(K)
    print('# marginal cost of a proof in a large batch, (%d·batch(%d) - %d·batch(%d)) / %d, CPU ms' % (M, M, k, k, M - k))
    for c in cases:
        n = int(c.split('x')[0])
        marg = lambda nm: (M * med(res[(c, nm, 'M')]) - k * med(x[1] for x in res[(c, nm)])) / (M - k)
        rm = marg('reference')
        print('%-4s %-14s marginal/proof %7.2f  marginal/input %6.2f' % (c, 'reference', rm, rm / n))
        for nm in names:
            g = marg(nm)
            print('%-4s %-14s marginal/proof %7.2f  marginal/input %6.2f  ratio %.2f' % (c, nm, g, g / n, g / rm))
ra = med(res[('grid', 'reference')])
print('grid %-14s 9 proofs, 18 inputs in one batch: %7.2f ms, %6.2f ms/input' % ('reference', ra, ra / 18))
for nm in names:
    a = med(res[('grid', nm)])
    print('grid %-14s 9 proofs, 18 inputs in one batch: %7.2f ms, %6.2f ms/input  ratio %.2f' % (nm, a, a / 18, a / ra))
EOF
