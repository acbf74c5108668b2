package consensus

import (
	"math/rand/v2"
	"testing"

	"github.com/gonero/gonero/params"
)

// All 100,000 long-term weights of mainnet 2,950,000..3,049,999, each from
// its block weight and the median of the 100,000 long-term weights below it.
func TestLongTermWeightMainnet(t *testing.T) {
	first, cols := readCSV(t, "weights_2850000_3049999.csv")
	weights, ltws := uint64s(t, cols[0]), uint64s(t, cols[1])
	if first != 2850000 || len(ltws) != 200000 {
		t.Fatalf("csv covers %d + %d rows", first, len(ltws))
	}
	rm := NewRollingMedian(LongTermBlockWeightWindow)
	for _, w := range ltws[:LongTermBlockWeightWindow] {
		rm.Push(w)
	}
	for i := LongTermBlockWeightWindow; i < len(ltws); i++ {
		h := first + uint64(i)
		if i%25000 == 0 { // spot-check the rolling median against a full sort
			if m := Median(ltws[i-LongTermBlockWeightWindow : i]); m != rm.Median() {
				t.Fatalf("height %d: rolling median %d, sorted median %d", h, rm.Median(), m)
			}
		}
		got := LongTermWeight(weights[i], rm.Median(), params.Mainnet.VersionAt(h))
		if got != ltws[i] {
			t.Fatalf("height %d: long-term weight %d, want %d (weight %d, median %d)", h, got, ltws[i], weights[i], rm.Median())
		}
		rm.Push(got)
	}
	if ltws[LongTermBlockWeightWindow] != 176470 || weights[LongTermBlockWeightWindow] != 3172 {
		t.Errorf("test-vectors §5.3 sample at 2950000 differs")
	}
}

func TestLongTermWeight(t *testing.T) {
	cases := []struct {
		weight, median uint64
		version        uint8
		want           uint64
	}{
		{106, 0, 16, 176470},               // block 2751506: 300000*10/17
		{106, 0, 9, 106},                   // before v10: the weight itself
		{900000, 0, 10, 420000},            // v10..14: at most 1.4 * max(300000, median)
		{100, 0, 14, 100},                  // ... and no floor
		{900000, 400000, 16, 680000},       // v15+: at most 1.7 * median
		{100, 400000, 16, 235294},          // ... at least median / 1.7
		{200419, 176470, 16, 200419},       // block 3195020 (weight = LTW)
		{1 << 40, 1 << 30, 15, 1825361100}, // 2^30 + 2^30*7/10
	}
	for _, c := range cases {
		if got := LongTermWeight(c.weight, c.median, c.version); got != c.want {
			t.Errorf("LongTermWeight(%d, %d, v%d) = %d, want %d", c.weight, c.median, c.version, got, c.want)
		}
	}
}

func TestEffectiveMedian(t *testing.T) {
	cases := []struct {
		short, long uint64
		version     uint8
		want        uint64
	}{
		{0, 0, 1, 20000}, {35000, 0, 1, 35000}, {0, 0, 4, 60000}, {0, 0, 5, 300000}, {450000, 0, 9, 450000},
		{0, 0, 10, 300000},              // floor
		{450000, 0, 10, 450000},         // short-term median between 300000 and 50 * 300000
		{20_000_000, 0, 14, 15_000_000}, // capped at 50 * max(300000, long)
		{350000, 400000, 14, 350000},    // v10..14: the long-term median is only a cap
		{350000, 400000, 15, 400000},    // v15+: ... and a floor
		{133498, 176470, 16, 300000},    // a typical 2024 block: everything below 300000
		{30_000_000, 400000, 16, 20_000_000},
	}
	for _, c := range cases {
		if got := EffectiveMedian(c.short, c.long, c.version); got != c.want {
			t.Errorf("EffectiveMedian(%d, %d, v%d) = %d, want %d", c.short, c.long, c.version, got, c.want)
		}
	}
	if BlockWeightLimit(300000) != 600000 {
		t.Error("BlockWeightLimit")
	}
	if RewardMedian(1, 2, 11) != 1 || RewardMedian(1, 2, 12) != 2 {
		t.Error("RewardMedian switches at version 12")
	}
	for v, want := range map[uint8]uint64{1: 20000, 2: 60000, 4: 60000, 5: 300000, 16: 300000} {
		if FullRewardZone(v) != want {
			t.Errorf("FullRewardZone(%d) = %d", v, FullRewardZone(v))
		}
	}
}

func TestMedian(t *testing.T) {
	max := ^uint64(0)
	cases := []struct {
		in   []uint64
		want uint64
	}{
		{nil, 0}, {[]uint64{5}, 5}, {[]uint64{3, 1, 2}, 2}, {[]uint64{1, 2}, 1}, {[]uint64{5, 3}, 4},
		{[]uint64{3, 3}, 3}, {[]uint64{max, max - 1}, max - 1}, {[]uint64{max, max}, max}, {[]uint64{9, 1, 4, 7}, 5},
	}
	for _, c := range cases {
		in := append([]uint64(nil), c.in...)
		if got := Median(in); got != c.want {
			t.Errorf("Median(%v) = %d, want %d", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Errorf("Median reordered its argument: %v", in)
			}
		}
	}
}

// RollingMedian against Median over many random windows, with duplicates
// and bucket splits and merges.
func TestRollingMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, window := range []int{1, 2, 3, 7, 100, 5000} {
		rm := NewRollingMedian(window)
		var all []uint64
		if rm.Median() != 0 || rm.Len() != 0 {
			t.Fatal("empty RollingMedian")
		}
		for i := range 3*window + 3000 {
			var v uint64
			switch rng.IntN(3) {
			case 0:
				v = rng.Uint64N(10) // many duplicates
			case 1:
				v = rng.Uint64()
			default:
				v = uint64(i) // increasing runs
			}
			rm.Push(v)
			all = append(all, v)
			win := all[max(0, len(all)-window):]
			if rm.Len() != len(win) {
				t.Fatalf("window %d step %d: Len %d, want %d", window, i, rm.Len(), len(win))
			}
			if window < 5000 || i%97 == 0 {
				if got, want := rm.Median(), Median(win); got != want {
					t.Fatalf("window %d step %d: %d, want %d", window, i, got, want)
				}
			}
		}
	}
}

func BenchmarkRollingMedianPush(b *testing.B) {
	_, cols := readCSV(b, "weights_2850000_3049999.csv")
	ltws := uint64s(b, cols[1])
	rm := NewRollingMedian(LongTermBlockWeightWindow)
	for _, w := range ltws[:LongTermBlockWeightWindow] {
		rm.Push(w)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		rm.Push(ltws[i%len(ltws)])
		_ = rm.Median()
		i++
	}
}

func BenchmarkMedianSort100000(b *testing.B) {
	_, cols := readCSV(b, "weights_2850000_3049999.csv")
	ltws := uint64s(b, cols[1])[:LongTermBlockWeightWindow]
	b.ReportAllocs()
	for b.Loop() {
		Median(ltws)
	}
}
