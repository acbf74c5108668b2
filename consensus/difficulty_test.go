package consensus

import (
	"bufio"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/params"
)

// Every mainnet block 3,000,735..3,001,999: its difficulty (cum[h] -
// cum[h-1]) recomputed from the rows DifficultyInputRange names.
func TestNextDifficultyMainnet(t *testing.T) {
	first, cols := readCSV(t, "difficulty_3000000_3001999.csv")
	cum, ts := u128s(t, cols[0]), uint64s(t, cols[1])
	at := func(h uint64) int { return int(h - first) }
	last := first + uint64(len(ts)) - 1
	if first != 3000000 || last != 3001999 {
		t.Fatalf("csv covers %d..%d", first, last)
	}

	samples := map[uint64]string{ // docs/test-vectors.md §5.2
		3000735: "327896041388",
		3001000: "320441365962",
		3001999: "320290239748",
	}
	checked := 0
	for h := first + DifficultyBlocksCount; h <= last; h++ {
		lo, hi := DifficultyInputRange(h)
		if hi-lo != DifficultyBlocksCount || hi != h {
			t.Fatalf("DifficultyInputRange(%d) = [%d, %d)", h, lo, hi)
		}
		got := NextDifficulty(ts[at(lo):at(hi)], cum[at(lo):at(hi)], DifficultyTarget(params.Mainnet.VersionAt(h)))
		want, _ := cum[at(h)].Sub(cum[at(h-1)])
		if got != want {
			t.Fatalf("height %d: difficulty %s, want %s", h, got, want)
		}
		if s, ok := samples[h]; ok && got.String() != s {
			t.Errorf("height %d: difficulty %s, test-vectors.md says %s", h, got, s)
		}
		checked++
	}
	if checked != 1265 {
		t.Errorf("checked %d blocks, want 1265", checked)
	}
}

// monero tests/difficulty/data.txt (Debian package monero-tests): lines
// "timestamp difficulty" of a synthetic chain with target 120. monero's
// difficulty-tests feeds block n the timestamps and cumulative difficulties
// (running sums of the difficulty column) of blocks [0, min(n, 720)) while
// n < 735 and of [n-735, n-15) after, and expects the line's difficulty.
func TestNextDifficultyMoneroTestData(t *testing.T) {
	const path = "/usr/share/monero/testdata/difficulty/data.txt"
	testutil.RequireFile(t, path, "apt-get install monero-tests")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	var ts []uint64
	var cum []u128.U128
	var total u128.U128
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			t.Fatalf("line %d: %q", n+1, sc.Text())
		}
		tsBig, ok1 := new(big.Int).SetString(fields[0], 10)
		dBig, ok2 := new(big.Int).SetString(fields[1], 10)
		d, ok3 := u128.FromBig(dBig)
		if !ok1 || !ok2 || !ok3 || !tsBig.IsUint64() {
			t.Fatalf("line %d: %q", n+1, sc.Text())
		}

		var begin, end int
		if n < DifficultyBlocksCount {
			begin, end = 0, min(n, DifficultyWindow)
		} else {
			end = n - DifficultyLag
			begin = end - DifficultyWindow
		}
		if got := NextDifficulty(ts[begin:end], cum[begin:end], 120); got != d {
			t.Fatalf("block %d: difficulty %s, want %s", n, got, d)
		}
		// The way a node passes it: the whole DifficultyBlocksCount range,
		// truncated inside NextDifficulty.
		if got := NextDifficulty(ts[max(0, n-DifficultyBlocksCount):], cum[max(0, n-DifficultyBlocksCount):], 120); got != d {
			t.Fatalf("block %d, full range: difficulty %s, want %s", n, got, d)
		}

		ts = append(ts, tsBig.Uint64())
		total, _ = total.Add(d)
		cum = append(cum, total)
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1000 {
		t.Errorf("read %d lines, want 1000", n)
	}
}

func TestDifficultyInputRange(t *testing.T) {
	cases := []struct{ h, first, end uint64 }{
		{0, 0, 0}, {1, 1, 1}, {2, 1, 2}, {3, 1, 3},
		{735, 1, 735}, {736, 1, 736}, {737, 2, 737}, {3000735, 3000000, 3000735},
	}
	for _, c := range cases {
		if f, e := DifficultyInputRange(c.h); f != c.first || e != c.end {
			t.Errorf("DifficultyInputRange(%d) = [%d, %d), want [%d, %d)", c.h, f, e, c.first, c.end)
		}
	}
}

func TestNextDifficultyEdges(t *testing.T) {
	one := u128.From64(1)
	// Blocks 1 and 2 always get difficulty 1: no data, then one block.
	if d := NextDifficulty(nil, nil, 120); d != one {
		t.Errorf("empty window: %s", d)
	}
	if d := NextDifficulty([]uint64{5}, []u128.U128{mustU128("999")}, 120); d != one {
		t.Errorf("one block: %s", d)
	}
	// Equal timestamps: the span counts as 1 second.
	if d := NextDifficulty([]uint64{7, 7}, []u128.U128{mustU128("10"), mustU128("13")}, 120); d != u128.From64(360) {
		t.Errorf("zero span: %s, want 360", d)
	}
	// Ceiling division: work 10 over 3 s at target 1 -> 4.
	if d := NextDifficulty([]uint64{0, 3}, []u128.U128{mustU128("0"), mustU128("10")}, 1); d != u128.From64(4) {
		t.Errorf("ceiling: %s, want 4", d)
	}
	// Largest representable result, then one past it.
	maxU128 := mustU128("0xffffffffffffffffffffffffffffffff")
	if d := NextDifficulty([]uint64{0, 0}, []u128.U128{{}, maxU128}, 1); d != maxU128 {
		t.Errorf("2^128-1: %s", d)
	}
	if d := NextDifficulty([]uint64{0, 0}, []u128.U128{{}, maxU128}, 2); !d.IsZero() {
		t.Errorf("overflow must give 0, got %s", d)
	}
	// More than 64 bits survives: work 60 * 2^64 over 60 s at 120 s = 120 * 2^64.
	wide := mustU128("0x3c0000000000000000")
	if d := NextDifficulty([]uint64{100, 160}, []u128.U128{{}, wide}, 120); d != mustU128("0x780000000000000000") {
		t.Errorf("wide: %s", d)
	}
	// The caller's slices are left alone (monerod takes copies).
	ts := []uint64{9, 3, 5}
	NextDifficulty(ts, []u128.U128{{}, one, mustU128("2")}, 120)
	if !slices.Equal(ts, []uint64{9, 3, 5}) {
		t.Errorf("timestamps modified: %v", ts)
	}
	defer func() {
		if recover() == nil {
			t.Error("mismatched lengths must panic")
		}
	}()
	NextDifficulty([]uint64{1, 2}, []u128.U128{one}, 120)
}

// refNextDifficulty is docs/chain-format.md §7 written with math/big, to cross-check the 192-bit
// arithmetic on values the chain data never reaches.
func refNextDifficulty(ts []uint64, cd []*big.Int, target uint64) *big.Int {
	if len(ts) > DifficultyWindow {
		ts, cd = ts[:DifficultyWindow], cd[:DifficultyWindow]
	}
	n := len(ts)
	if n <= 1 {
		return big.NewInt(1)
	}
	s := slices.Sorted(slices.Values(ts))
	lo, hi := 0, n
	if n > 600 {
		lo = (n - 600 + 1) / 2
		hi = lo + 600
	}
	span := new(big.Int).SetUint64(max(1, s[hi-1]-s[lo]))
	work := new(big.Int).Sub(cd[hi-1], cd[lo])
	d := work.Mul(work, new(big.Int).SetUint64(target))
	d.Add(d, span).Sub(d, big.NewInt(1)).Quo(d, span)
	if d.BitLen() > 128 {
		return new(big.Int)
	}
	return d
}

func TestNextDifficultyWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var compared, wide, overflow int
	for iter := 0; iter < 400; iter++ {
		n := rng.IntN(DifficultyBlocksCount + 1)
		ts := make([]uint64, n)
		cd := make([]u128.U128, n)
		ref := make([]*big.Int, n)
		acc := new(big.Int)
		workBits := uint(rng.IntN(125)) // per-block work below 2^workBits
		for i := range n {
			ts[i] = 1_000_000 + uint64(i)*120 + rng.Uint64N(2000) - 1000
			w := u128.U128{Lo: rng.Uint64(), Hi: rng.Uint64()}.Big()
			acc.Add(acc, w.Rsh(w, 128-workBits))
			ref[i] = new(big.Int).Set(acc)
			cd[i], _ = u128.FromBig(acc)
		}
		if acc.BitLen() > 128 {
			continue
		}
		target := []uint64{60, 120, 1 << 40}[rng.IntN(3)]
		got := NextDifficulty(ts, cd, target)
		if want := refNextDifficulty(ts, ref, target); got.Big().Cmp(want) != 0 {
			t.Fatalf("n=%d target=%d: %s, want %s", n, target, got, want)
		}
		compared++
		if got.Hi != 0 {
			wide++
		}
		if got.IsZero() {
			overflow++
		}
	}
	t.Logf("%d compared, %d wider than 64 bits, %d overflows", compared, wide, overflow)
	// The cases must cover 64-bit, wider and overflowing results.
	if compared < 200 || wide < 20 || overflow < 5 {
		t.Errorf("weak coverage: %d compared, %d wider than 64 bits, %d overflows", compared, wide, overflow)
	}
}

func TestFixedDifficulty(t *testing.T) {
	if d := FixedDifficulty(0, 5000); d != u128.From64(1) {
		t.Errorf("genesis: %s", d)
	}
	if d := FixedDifficulty(1, 5000); d != u128.From64(5000) {
		t.Errorf("height 1: %s", d)
	}
}

func TestDifficultyTarget(t *testing.T) {
	if DifficultyTarget(1) != 60 || DifficultyTarget(2) != 120 || DifficultyTarget(16) != 120 {
		t.Error("targets")
	}
}

func BenchmarkNextDifficulty(b *testing.B) {
	first, cols := readCSV(b, "difficulty_3000000_3001999.csv")
	cum, ts := u128s(b, cols[0]), uint64s(b, cols[1])
	lo, hi := DifficultyInputRange(first + DifficultyBlocksCount)
	ts, cum = ts[lo-first:hi-first], cum[lo-first:hi-first]
	b.ReportAllocs()
	for b.Loop() {
		NextDifficulty(ts, cum, DifficultyTargetV2)
	}
}
