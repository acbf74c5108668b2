package pruning

// The cases of monerod v0.18.0.0 tests/unit_tests/pruning.cpp, one Go test
// per gtest case, with the same numbers.

import "testing"

func mustSeed(t *testing.T, stripe, log uint32) uint32 {
	t.Helper()
	s, err := MakeSeed(stripe, log)
	if err != nil {
		t.Fatalf("MakeSeed(%d, %d): %v", stripe, log, err)
	}
	return s
}

func TestParts(t *testing.T) {
	eq := func(got, want uint32) {
		t.Helper()
		if got != want {
			t.Fatalf("got %d, want %d", got, want)
		}
	}
	eq(StripeOf(mustSeed(t, 3, 2)), 3)
	eq(StripeOf(mustSeed(t, 1, 2)), 1)
	eq(StripeOf(mustSeed(t, 7, 7)), 7)
	eq(LogStripesOf(mustSeed(t, 1, 2)), 2)
	eq(LogStripesOf(mustSeed(t, 1, 0)), 0)
	eq(LogStripesOf(mustSeed(t, 1, 7)), 7)
	eq(LogStripesOf(mustSeed(t, 7, 7)), 7)
	for log := uint32(1); log <= seedLogStripesMask; log++ {
		for stripe := uint32(1); stripe <= 1<<log; stripe++ {
			eq(LogStripesOf(mustSeed(t, stripe, log)), log)
			eq(StripeOf(mustSeed(t, stripe, log)), stripe)
		}
	}
}

func TestOutOfRange(t *testing.T) {
	if _, err := MakeSeed(5, 2); err == nil {
		t.Fatal("MakeSeed(5, 2) accepted")
	}
	if _, err := MakeSeed(0, 2); err == nil {
		t.Fatal("MakeSeed(0, 2) accepted")
	}
}

func TestFits(t *testing.T) {
	for stripe := uint32(1); stripe <= Stripes; stripe++ {
		seed := mustSeed(t, stripe, LogStripes)
		if seed == 0 || LogStripesOf(seed) != LogStripes || StripeOf(seed) != stripe {
			t.Fatalf("stripe %d: seed %#x", stripe, seed)
		}
		// The only valid non-zero seeds on the wire are 0x180…0x187.
		if seed != 0x180+stripe-1 || ValidateSeed(seed) != nil {
			t.Fatalf("stripe %d: seed %#x not 0x180+%d or refused", stripe, seed, stripe-1)
		}
	}
	for _, bad := range []uint32{1, 0x17f, 0x188, 0x100, 0x200, 0xffffffff} {
		if ValidateSeed(bad) == nil {
			t.Fatalf("ValidateSeed(%#x) accepted", bad)
		}
	}
}

func TestTip(t *testing.T) {
	const H = TipBlocks + 1000
	for h := uint64(H - TipBlocks); h < H; h++ {
		if s := SeedOfHeight(h, H, LogStripes); s != 0 {
			t.Fatalf("height %d: seed %#x in the tip", h, s)
		}
		for seed := uint32(0); seed <= Stripes; seed++ {
			if !HasUnprunedBlock(h, H, seed) {
				t.Fatalf("height %d seed %d: tip block pruned", h, seed)
			}
		}
	}
}

func TestSeed(t *testing.T) {
	const SS, NS = StripeSize, Stripes
	const TB = NS * SS
	for cycle := uint64(0); cycle < 10; cycle++ {
		O := TB * cycle
		for _, c := range []struct {
			h    uint64
			want uint32
		}{{O, 1}, {O + 1, 1}, {O + SS - 1, 1}, {O + SS, 2}, {O + SS*2 - 1, 2}, {O + SS*2, 3}, {O + SS*NS - 1, NS}, {O + SS*NS, 1}} {
			if got := StripeOfHeight(c.h, 10000000, LogStripes); got != c.want {
				t.Fatalf("StripeOfHeight(%d) = %d, want %d", c.h, got, c.want)
			}
		}
	}
}

func TestMatch(t *testing.T) {
	const H = TipBlocks + 1000
	for h := uint64(0); h < H-TipBlocks; h++ {
		seed := SeedOfHeight(h, H, LogStripes)
		stripe := StripeOf(seed)
		if stripe == 0 || stripe > Stripes {
			t.Fatalf("height %d: stripe %d", h, stripe)
		}
		for other := uint32(1); other <= Stripes; other++ {
			os := mustSeed(t, other, LogStripes)
			if HasUnprunedBlock(h, H, os) != (os == seed) {
				t.Fatalf("height %d seed %#x: HasUnprunedBlock disagrees with stripe", h, os)
			}
		}
	}
}

func TestStripeSize(t *testing.T) {
	const H = TipBlocks + StripeSize*Stripes + 1000
	for stripe := uint32(1); stripe <= Stripes; stripe++ {
		seed := mustSeed(t, stripe, LogStripes)
		run, best := 0, 0
		for h := uint64(0); h < H-TipBlocks; h++ {
			if HasUnprunedBlock(h, H, seed) {
				run++
			} else if run != 0 {
				if run != StripeSize {
					t.Fatalf("stripe %d: run of %d", stripe, run)
				}
				best = max(best, run)
				run = 0
			}
		}
		if best != StripeSize {
			t.Fatalf("stripe %d: best run %d", stripe, best)
		}
	}
}

func TestNextUnpruned(t *testing.T) {
	const SS, NS = StripeSize, Stripes
	const TB = NS * SS
	for h := uint64(0); h < 100; h++ {
		if got := NextUnprunedHeight(h, 10000000, 0); got != h {
			t.Fatalf("seed 0 h %d: %d", h, got)
		}
	}
	s1, s2, s3, s4, sNS := mustSeed(t, 1, LogStripes), mustSeed(t, 2, LogStripes), mustSeed(t, 3, LogStripes), mustSeed(t, 4, LogStripes), mustSeed(t, NS, LogStripes)
	for _, c := range []struct {
		h    uint64
		seed uint32
		want uint64
	}{
		{0, s1, 0}, {1, s1, 1}, {SS - 1, s1, SS - 1}, {SS, s1, TB}, {TB, s1, TB}, {TB - 1, s1, TB},
		{0, s2, SS}, {1, s2, SS}, {SS - 1, s2, SS}, {SS, s2, SS}, {2*SS - 1, s2, 2*SS - 1}, {2 * SS, s2, TB + SS}, {TB + 2*SS, s2, TB*2 + SS},
		{0, s3, SS * 2}, {SS, s3, SS * 2}, {2 * SS, s3, SS * 2}, {3*SS - 1, s3, SS*3 - 1}, {3 * SS, s3, TB + SS*2}, {TB + 3*SS, s3, TB*2 + SS*2},
		{SS, s4, 3 * SS}, {4*SS - 1, s4, 4*SS - 1}, {4 * SS, s4, TB + 3*SS}, {TB + 4*SS, s4, TB*2 + 3*SS},
		{SS, sNS, (NS - 1) * SS}, {NS*SS - 1, sNS, NS*SS - 1}, {NS * SS, sNS, TB + (NS-1)*SS}, {TB + NS*SS, sNS, TB*2 + (NS-1)*SS},
	} {
		if got := NextUnprunedHeight(c.h, 10000000, c.seed); got != c.want {
			t.Fatalf("NextUnprunedHeight(%d, seed %#x) = %d, want %d", c.h, c.seed, got, c.want)
		}
	}
}

func TestNextPruned(t *testing.T) {
	const SS, NS = StripeSize, Stripes
	const TB = NS * SS
	s1, s2, sNS1, sNS := mustSeed(t, 1, LogStripes), mustSeed(t, 2, LogStripes), mustSeed(t, NS-1, LogStripes), mustSeed(t, NS, LogStripes)
	for h := uint64(0); h < 100; h++ {
		if got := NextPrunedHeight(h, 10000000, 0); got != 10000000 {
			t.Fatalf("seed 0 h %d: %d", h, got)
		}
	}
	for h := uint64(10000000 - 1 - TipBlocks); h < 10000000; h++ {
		if got := NextPrunedHeight(h, 10000000, 0); got != 10000000 {
			t.Fatalf("seed 0 h %d: %d", h, got)
		}
	}
	for _, c := range []struct {
		h    uint64
		seed uint32
		want uint64
	}{
		{1, s1, SS}, {SS - 1, s1, SS}, {SS, s1, SS}, {TB - 1, s1, TB - 1}, {TB, s1, TB + SS},
		{1, s2, 1}, {SS - 1, s2, SS - 1}, {SS, s2, 2 * SS}, {TB - 1, s2, TB - 1},
		{1, sNS1, 1}, {SS - 1, sNS1, SS - 1}, {SS, sNS1, SS}, {TB - 1, sNS1, TB - 1},
		{1, sNS, 1}, {SS - 1, sNS, SS - 1}, {SS, sNS, SS}, {TB - 1, sNS, TB},
	} {
		if got := NextPrunedHeight(c.h, 10000000, c.seed); got != c.want {
			t.Fatalf("NextPrunedHeight(%d, seed %#x) = %d, want %d", c.h, c.seed, got, c.want)
		}
	}
}

func TestRandomStripe(t *testing.T) {
	seen := map[uint32]bool{}
	for range 2000 {
		s := RandomStripe()
		if s < 1 || s > Stripes {
			t.Fatalf("stripe %d", s)
		}
		seen[s] = true
	}
	if len(seen) != Stripes {
		t.Fatalf("2000 draws hit only %d stripes", len(seen))
	}
}
