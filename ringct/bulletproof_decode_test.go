package ringct

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/internal/testutil"
)

// sameDecode checks that decodeVoi accepts exactly what crypto.DecodePoint
// accepts, and decodes to the same point.
func sameDecode(t testing.TB, b []byte) {
	p, err := crypto.DecodePoint(b)
	v, ok := decodeVoi(b)
	if (err == nil) != ok {
		t.Fatalf("%x: crypto.DecodePoint ok=%v, decodeVoi ok=%v", b, err == nil, ok)
	}
	if ok {
		var c [32]byte
		copy(c[:], p.Bytes())
		enc := v.Bytes()
		if !bytes.Equal(enc, c[:]) || !bytes.Equal(enc, b) {
			t.Fatalf("%x: decoders disagree on the point", b)
		}
	}
}

func edgeEncodings() [][]byte {
	var out [][]byte
	le := func(v uint64, top byte) []byte {
		b := make([]byte, 32)
		for i := 0; i < 8; i++ {
			b[i] = byte(v >> (8 * i))
		}
		b[31] |= top
		return b
	}
	// p − k and p + k for small k (y just below and at/above p), with and
	// without the sign bit.
	for k := 0; k < 40; k++ {
		for _, sign := range []byte{0, 0x80} {
			b := bytes.Repeat([]byte{0xff}, 32)
			b[31] = 0x7f | sign
			b[0] = byte(0xed - 20 + k) // p = 2^255 − 19: low byte 0xed
			out = append(out, b)
			out = append(out, le(uint64(k), sign))
		}
	}
	// y = 1 and y = −1 (x = 0) with the sign bit: refused.
	return out
}

func TestDecodeVoiMatchesCrypto(t *testing.T) {
	for _, b := range edgeEncodings() {
		sameDecode(t, b)
	}
	// The small-order points.
	f, err := os.ReadFile(testutil.Path(t, "testdata", "vectors", "monero-unit-tests", "torsion_points.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Fields(string(f)) {
		sameDecode(t, mustHex(t, line))
	}
	// Random bytes (about half are points) and random points.
	rng := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 3000; i++ {
		b := make([]byte, 32)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		sameDecode(t, b)
		s, _ := edwards25519.NewScalar().SetUniformBytes(append(b, b...))
		sameDecode(t, new(edwards25519.Point).ScalarBaseMult(s).Bytes())
	}
	// Every real proof's points and commitments.
	for _, r := range realTxs(t) {
		for _, k := range r.tx.Rct.OutPk {
			sameDecode(t, k[:])
		}
	}
}

func FuzzDecodeVoi(f *testing.F) {
	for _, b := range edgeEncodings() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) != 32 {
			return
		}
		sameDecode(t, b)
	})
}

func mustHex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
