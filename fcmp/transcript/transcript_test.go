package transcript

import (
	"bytes"
	"testing"

	"golang.org/x/crypto/blake2b"
)

// TestLayout checks the absorbed byte stream against d06d9518's layout written out by hand: context,
// u32 counts, tag-prefixed elements, and a challenge that is the digest of everything so far plus tag 2.
func TestLayout(t *testing.T) {
	ctx := [32]byte{1, 2, 3}
	var pt, sc [32]byte
	pt[0], sc[0] = 0xaa, 0x55
	p := NewProver(ctx)
	p.Count(1)
	p.PushPoint(pt)
	p.PushScalar(sc)
	got := p.Challenge()
	got2 := p.Challenge()

	stream := append([]byte{}, ctx[:]...)
	stream = append(stream, 1, 0, 0, 0)
	stream = append(stream, 1)
	stream = append(stream, pt[:]...)
	stream = append(stream, 0)
	stream = append(stream, sc[:]...)
	stream = append(stream, 2)
	if want := blake2b.Sum512(stream); got != want {
		t.Fatalf("challenge %x, want %x", got, want)
	}
	if want := blake2b.Sum512(append(stream, 2)); got2 != want {
		t.Fatalf("second challenge %x, want %x", got2, want)
	}
	if !bytes.Equal(p.Proof(), append(pt[:], sc[:]...)) {
		t.Fatal("the proof is not the concatenated elements")
	}

	v := NewVerifier(ctx, p.Proof())
	v.Count(1)
	if b, err := v.ReadPoint(); err != nil || !bytes.Equal(b, pt[:]) {
		t.Fatal(err)
	}
	if b, err := v.ReadScalar(); err != nil || !bytes.Equal(b, sc[:]) {
		t.Fatal(err)
	}
	if v.Challenge() != got || v.Challenge() != got2 || v.Remaining() != 0 {
		t.Fatal("the verifier's challenges differ from the prover's")
	}
	if _, err := v.ReadPoint(); err != ErrShort {
		t.Fatalf("reading past the end: %v", err)
	}
}
