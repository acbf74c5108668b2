package helioselene

import (
	"bytes"
	"testing"
)

func FuzzField25519SetBytes(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add(bytes.Repeat([]byte{0xff}, 32))
	f.Add([]byte{0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := new(Field25519).SetBytes(b)
		if err != nil {
			return
		}
		if out := z.Bytes(); !bytes.Equal(out[:], b) {
			t.Fatalf("accepted %x re-encodes as %x", b, out)
		}
		if !new(Field25519).Square(z).Equal(new(Field25519).Mul(z, z)) {
			t.Fatalf("%x: square differs from multiplication", b)
		}
	})
}

func FuzzHelioseleneFieldSetBytes(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add(bytes.Repeat([]byte{0xff}, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := new(HelioseleneField).SetBytes(b)
		if err != nil {
			return
		}
		if out := z.Bytes(); !bytes.Equal(out[:], b) {
			t.Fatalf("accepted %x re-encodes as %x", b, out)
		}
		if !new(HelioseleneField).Square(z).Equal(new(HelioseleneField).Mul(z, z)) {
			t.Fatalf("%x: square differs from multiplication", b)
		}
	})
}

func FuzzHeliosSetBytes(f *testing.F) {
	f.Add(make([]byte, 32))
	g := HeliosGenerator().Bytes()
	f.Add(g[:])
	f.Add(bytes.Repeat([]byte{0xff}, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := new(HeliosPoint).SetBytes(b)
		if err != nil {
			return
		}
		if out := p.Bytes(); !bytes.Equal(out[:], b) {
			t.Fatalf("accepted %x re-encodes as %x", b, out)
		}
		// A decoded point is on the curve: doubling and adding agree.
		if !new(HeliosPoint).Double(p).Equal(new(HeliosPoint).Add(p, p)) {
			t.Fatalf("%x: 2P != P+P", b)
		}
	})
}

func FuzzSeleneSetBytes(f *testing.F) {
	f.Add(make([]byte, 32))
	g := SeleneGenerator().Bytes()
	f.Add(g[:])
	f.Add(bytes.Repeat([]byte{0xff}, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := new(SelenePoint).SetBytes(b)
		if err != nil {
			return
		}
		if out := p.Bytes(); !bytes.Equal(out[:], b) {
			t.Fatalf("accepted %x re-encodes as %x", b, out)
		}
		if !new(SelenePoint).Double(p).Equal(new(SelenePoint).Add(p, p)) {
			t.Fatalf("%x: 2P != P+P", b)
		}
	})
}
