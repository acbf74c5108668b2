package cryptonight

import (
	"bytes"
	"errors"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestSqrtV2Edges is hash-tests' variant2_int_sqrt self-test: the three fixed
// points, then both sides of the step where the result goes from i-1 to i,
// for every 83rd i (monerod's sampling for its slow reference) and the
// listed edges of docs/mainnet.md §7.1.
func TestSqrtV2Edges(t *testing.T) {
	for _, c := range [][2]uint64{
		{0, 0}, {1 << 63, 1930543745}, {^uint64(0), 3558067407},
		{1 << 32, 0}, {1<<32 + 1, 1}, {1 << 50, 262140},
		{1<<55 + 20963331, 8384515}, {1<<55 + 20963332, 8384516},
		{1<<62 + 26599786, 1013904242}, {1<<62 + 26599787, 1013904243},
	} {
		if got := sqrtV2(c[0]); got != c[1] {
			t.Errorf("sqrtV2(%d) = %d, want %d", c[0], got, c[1])
		}
	}
	step := uint64(83)
	if testing.Short() {
		step = 8300
	}
	for i := uint64(1); i <= 3558067407; i += step {
		i0 := i >> 1
		var n uint64
		if i&1 == 0 {
			n = i0*i0 + i<<32 - 1
		} else {
			n = i0*i0 + i0 + i<<32
		}
		if got := sqrtV2(n); got != i-1 {
			t.Fatalf("sqrtV2(%d) = %d, want %d", n, got, i-1)
		}
		if got := sqrtV2(n + 1); got != i {
			t.Fatalf("sqrtV2(%d) = %d, want %d", n+1, got, i)
		}
	}
}

// TestSqrtV2Random compares with an exact math/big computation:
// floor(2·sqrt(2^64+x) − 2^33) = floor(sqrt(4·(2^64+x))) − 2^33.
func TestSqrtV2Random(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		x := rng.Uint64()
		v := new(big.Int).Lsh(big.NewInt(1), 64)
		v.Add(v, new(big.Int).SetUint64(x))
		v.Lsh(v, 2)
		v.Sqrt(v)
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 33))
		if got := sqrtV2(x); got != v.Uint64() {
			t.Fatalf("sqrtV2(%d) = %d, want %d", x, got, v.Uint64())
		}
	}
}

// TestV1NonceOffset: the v1 tweak reads input bytes 35..42, whatever the
// input's length; changing a byte there changes the hash, and v1 refuses
// inputs shorter than 43 bytes (monerod exits instead).
func TestV1Input(t *testing.T) {
	h := NewHasher()
	if _, err := h.Sum(make([]byte, 42), V1, 0); !errors.Is(err, ErrShortInput) {
		t.Fatalf("42 bytes: %v", err)
	}
	if _, err := h.Sum(nil, 6, 0); !errors.Is(err, ErrVariant) {
		t.Fatalf("variant 6: %v", err)
	}
	if _, err := h.Sum(nil, -1, 0); !errors.Is(err, ErrVariant) {
		t.Fatalf("variant -1: %v", err)
	}
}

// TestVariantAliases: monerod treats variant 3 as 2 and 5 as 4; V0..V2
// ignore the height.
func TestVariantAliases(t *testing.T) {
	in := bytes.Repeat([]byte{0x5a}, 76)
	h := NewHasher()
	sum := func(v int, height uint64) [Size]byte {
		s, err := h.Sum(in, v, height)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if sum(V2, 1) != sum(V3, 2) {
		t.Error("variant 3 differs from 2")
	}
	if sum(R, 1806260) != sum(R5, 1806260) {
		t.Error("variant 5 differs from 4")
	}
	if sum(R, 1806260) == sum(R, 1806261) {
		t.Error("CryptoNight-R ignores the height")
	}
}

// TestV4ProgramSizes: programs have 60..70 instructions, end with r8 used as
// a source, and their size distribution over a range of heights looks like
// the one monerod's header records for heights below 10^7 (mostly 62–63).
func TestV4ProgramSizes(t *testing.T) {
	var p v4Program
	var count [v4InstructionsMax + 1]int
	const n = 20000
	for height := uint64(1_800_000); height < 1_800_000+n; height++ {
		generateV4(&p, height)
		if p.n < v4InstructionsMin || p.n > v4InstructionsMax {
			t.Fatalf("height %d: %d instructions", height, p.n)
		}
		r8 := false
		for _, in := range p.code[:p.n] {
			r8 = r8 || in.src == 8
			if in.dst > 3 || in.src > 8 || in.op > opXOR {
				t.Fatalf("height %d: bad instruction %+v", height, in)
			}
		}
		if !r8 {
			t.Fatalf("height %d: r8 unused", height)
		}
		count[p.n]++
	}
	// monerod: 62 and 63 are 75.9% of all programs, 69 one in 10^5.
	if share := float64(count[62]+count[63]) / n; share < 0.70 || share > 0.82 {
		t.Errorf("62–63 instruction programs: %.3f of %d, want about 0.76 (%v)", share, n, count[60:])
	}
}

// TestPseudoEncrypt8: the AES-NI fill/fold equals the table-driven rounds
// (which serve machines without AES-NI and the main loop).
func TestPseudoEncrypt8(t *testing.T) {
	if !hasAESNI {
		t.Skip("no AES-NI on this machine: only the table-driven rounds run")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		var key [32]byte
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		rk := expandKey(key[:])
		var text, want [16]uint64
		for i := range text {
			text[i] = rng.Uint64()
		}
		for j := 0; j < 16; j += 2 {
			want[j], want[j+1] = pseudoEncrypt(text[j], text[j+1], &rk)
		}
		pseudoEncrypt8AESNI(&text, &rk)
		if text != want {
			t.Fatalf("key %x: AES-NI %x, tables %x", key, text, want)
		}
	}
}

// TestPoolConcurrent: goroutines sharing a pool of two scratchpads get the
// hashes a fresh Hasher gives, and the pool never holds more than two.
func TestPoolConcurrent(t *testing.T) {
	p := NewPool(2)
	inputs := make([][]byte, 8)
	want := make([][Size]byte, len(inputs))
	h := NewHasher()
	for i := range inputs {
		inputs[i] = bytes.Repeat([]byte{byte(i)}, 43+i)
		want[i], _ = h.Sum(inputs[i], i%3, 0)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < len(inputs); i += 4 {
				got, err := p.Sum(inputs[i], i%3, 0)
				if err != nil || got != want[i] {
					t.Errorf("input %d: %x (%v), want %x", i, got, err, want[i])
				}
			}
		})
	}
	wg.Wait()
	if n := len(p.free); n != 2 {
		t.Errorf("pool holds %d hashers, want 2", n)
	}
}
