package consensus

import (
	"encoding/hex"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gonero/gonero/crypto/cryptonight"
	"github.com/gonero/gonero/internal/u128"
)

func hash32(t *testing.T, s string) [32]byte {
	t.Helper()
	var h [32]byte
	if b, err := hex.DecodeString(s); err != nil || len(b) != 32 {
		t.Fatalf("bad hash %q", s)
	} else {
		copy(h[:], b)
	}
	return h
}

// hashOf is the 32-byte little-endian encoding of x.
func hashOf(x *big.Int) [32]byte {
	var h [32]byte
	b := x.Bytes()
	for i := range b {
		h[i] = b[len(b)-1-i]
	}
	return h
}

func TestCheckPoWHashRealBlock(t *testing.T) {
	// Mainnet 2751506 (docs/test-vectors.md §3): RandomX hash and its difficulty.
	pow := hash32(t, "10b473b5d097d6bfa0656616951840724dfe38c6fb9c4adf8158800300000000")
	if !CheckPoWHash(pow, u128.From64(313732272488)) {
		t.Error("block 2751506 must satisfy its own difficulty")
	}
	// Its hash is about 2^219, so a difficulty of 2^40 rejects it.
	if CheckPoWHash(pow, u128.From64(1<<40)) {
		t.Error("block 2751506's hash must fail difficulty 2^40")
	}
}

func TestCheckPoWHashEdges(t *testing.T) {
	var ones, zero [32]byte
	for i := range ones {
		ones[i] = 0xff
	}
	if !CheckPoWHash(ones, u128.From64(1)) || !CheckPoWHash(ones, u128.U128{}) {
		t.Error("difficulty 1 (and 0) must accept every hash")
	}
	if CheckPoWHash(ones, u128.From64(2)) {
		t.Error("the largest hash must fail difficulty 2")
	}
	maxD := u128.U128{Lo: ^uint64(0), Hi: ^uint64(0)}
	if !CheckPoWHash(zero, maxD) {
		t.Error("the zero hash passes any difficulty")
	}
	var top [32]byte
	top[31] = 0x80 // x = 2^255
	if !CheckPoWHash(top, u128.From64(1)) || CheckPoWHash(top, u128.From64(2)) || CheckPoWHash(top, u128.From64(313732272488)) || CheckPoWHash(top, maxD) {
		t.Error("hash 2^255: passes only difficulty 1")
	}
	var low [32]byte
	low[0] = 1 // x = 1 passes everything, including 2^128-1
	if !CheckPoWHash(low, maxD) {
		t.Error("hash 1 must pass difficulty 2^128-1")
	}

	// Exact boundary: x = floor((2^256-1)/D) passes, x+1 fails, for 64-bit
	// and wider difficulties (monerod's check_hash_64 and check_hash_128).
	limit := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 2000 {
		var d u128.U128
		switch i % 3 {
		case 0:
			d = u128.From64(rng.Uint64()>>rng.IntN(64) | 1)
		case 1:
			d = u128.U128{Lo: rng.Uint64(), Hi: rng.Uint64() >> rng.IntN(64)}
		default:
			d = u128.From64(313732272488 + rng.Uint64N(1000))
		}
		if d.IsZero() {
			continue
		}
		x := new(big.Int).Quo(limit, d.Big())
		if !CheckPoWHash(hashOf(x), d) {
			t.Fatalf("D=%s: x=floor((2^256-1)/D) must pass", d)
		}
		x.Add(x, big.NewInt(1))
		if x.BitLen() <= 256 && CheckPoWHash(hashOf(x), d) {
			t.Fatalf("D=%s: x=floor((2^256-1)/D)+1 must fail", d)
		}
		// And a random hash against the definition.
		var h [32]byte
		for j := range 4 {
			v := rng.Uint64() >> rng.IntN(64)
			for k := range 8 {
				h[8*j+k] = byte(v >> (8 * k))
			}
		}
		hx := new(big.Int).SetBytes(reverse(h))
		want := new(big.Int).Mul(hx, d.Big()).Cmp(limit) <= 0
		if CheckPoWHash(h, d) != want {
			t.Fatalf("D=%s hash=%x: got %v", d, h, !want)
		}
	}
}

func reverse(h [32]byte) []byte {
	out := make([]byte, 32)
	for i := range h {
		out[31-i] = h[i]
	}
	return out
}

func TestSeedHeight(t *testing.T) {
	cases := []struct{ h, seed, next uint64 }{ // docs/test-vectors.md §5.4
		{1, 0, 0}, {2048, 0, 0}, {2048 + 64 - 64, 0, 0}, {2112, 0, 2048}, {2113, 2048, 2048},
		{4160, 2048, 4096}, {4161, 4096, 4096},
		{1978433, 1978368, 1978368},
		{2731375, 2729984, 2729984}, // get_miner_data_2731375.json seed a6b869d5…
		{2751506, 2750464, 2750464},
		{3195018, 3194880, 3194880}, // get_block_template_3195018.json: seed_height 3194880, next_seed_hash ""
	}
	for _, c := range cases {
		if s, n := SeedHeight(c.h), NextSeedHeight(c.h); s != c.seed || n != c.next {
			t.Errorf("height %d: seed %d next %d, want %d %d", c.h, s, n, c.seed, c.next)
		}
	}
	if SeedHeight(0) != 0 {
		t.Error("SeedHeight(0)")
	}
}

type fakeHasher struct {
	calls int
	seed  [32]byte
	input []byte
	out   [32]byte
	err   error
}

func (f *fakeHasher) Hash(seed [32]byte, input []byte) ([32]byte, error) {
	f.calls++
	f.seed, f.input = seed, input
	return f.out, f.err
}

func TestBlockPoWHash(t *testing.T) {
	want202612 := hash32(t, "84f64766475d51837ac9efbef1926486e58563c95a19fef4aec3254f03000000")
	if h, ok := PoWHashOverride(202612); !ok || h != want202612 {
		t.Errorf("PoWHashOverride(202612) = %x, %v", h, ok)
	}
	if _, ok := PoWHashOverride(202611); ok {
		t.Error("only 202612 is overridden")
	}

	f := &fakeHasher{out: [32]byte{1, 2, 3}}
	var seed [32]byte
	seed[0] = 9
	blob := []byte{0x10, 0x10}

	// 202612 never reaches the hasher, whatever the version (regtest is v16 there).
	if h, err := BlockPoWHash(f, 202612, 16, seed, blob); err != nil || h != want202612 || f.calls != 0 {
		t.Errorf("height 202612: %x, %v, %d calls", h, err, f.calls)
	}
	if h, err := BlockPoWHash(f, 202612, 1, seed, blob); err != nil || h != want202612 {
		t.Errorf("height 202612 v1: %x, %v", h, err)
	}
	if _, err := BlockPoWHash(f, 1978432, 11, seed, blob); err != nil || f.calls != 0 {
		t.Errorf("CryptoNight version: %v, %d RandomX calls", err, f.calls)
	}
	if _, err := BlockPoWHash(f, 1546000, 7, seed, blob); !errors.Is(err, cryptonight.ErrShortInput) {
		t.Errorf("CryptoNight v1 on 2 bytes: %v", err)
	}
	if h, err := BlockPoWHash(f, 1978433, 12, seed, blob); err != nil || h != f.out || f.calls != 1 || f.seed != seed || string(f.input) != string(blob) {
		t.Errorf("RandomX: %x, %v, calls %d", h, err, f.calls)
	}
	f.err = errors.New("vm failed")
	if _, err := BlockPoWHash(f, 3000000, 16, seed, blob); err != f.err {
		t.Errorf("hasher error not passed on: %v", err)
	}
	pe := &PoWError{Height: 5, Difficulty: u128.From64(7)}
	if !errors.Is(pe, ErrInsufficientPoW) {
		t.Error("PoWError must unwrap to ErrInsufficientPoW")
	}
}

func BenchmarkCheckPoWHash(b *testing.B) {
	var h [32]byte
	copy(h[:], "10b473b5d097d6bfa0656616951840")
	d := u128.From64(313732272488)
	for b.Loop() {
		CheckPoWHash(h, d)
	}
}
