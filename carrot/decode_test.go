package carrot

import (
	"bytes"
	"errors"
	"testing"

	"filippo.io/edwards25519"
)

func TestParseRefusesNonCanonical(t *testing.T) {
	g := edwards25519.NewGeneratorPoint().Bytes()
	// y = p + 1 encodes y = 1 (the identity) non-canonically.
	yP1 := make([]byte, 32)
	copy(yP1, fieldP[:])
	yP1[0]++
	// Negative zero: x = 0 with the sign bit set (y = 1).
	negZero := make([]byte, 32)
	negZero[0], negZero[31] = 1, 0x80
	notOnCurve := make([]byte, 32)
	notOnCurve[0] = 2 // y = 2 has no x
	for name, b := range map[string][]byte{"short": g[:31], "long": append(g, 0), "y = p+1": yP1,
		"negative zero": negZero, "not on curve": notOnCurve} {
		if _, err := ParsePoint(b); err == nil {
			t.Errorf("ParsePoint(%s) accepted", name)
		}
	}
	if p, err := ParsePoint(g); err != nil || !bytes.Equal(p[:], g) {
		t.Errorf("ParsePoint(G): %v", err)
	}
	id := edwards25519.NewIdentityPoint().Bytes()
	if _, err := ParseAddressPoint(id); !errors.Is(err, ErrBadPoint) {
		t.Errorf("ParseAddressPoint(identity): %v", err)
	}
	if _, err := ParseAddressPoint(g); err != nil {
		t.Errorf("ParseAddressPoint(G): %v", err)
	}

	// ℓ itself is not canonical; ℓ-1 is.
	l := fromHex(t, "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
	if _, err := ParseScalar(l); !errors.Is(err, ErrBadScalar) {
		t.Errorf("ParseScalar(ℓ): %v", err)
	}
	lm1 := append([]byte(nil), l...)
	lm1[0]--
	if _, err := ParseScalar(lm1); err != nil {
		t.Errorf("ParseScalar(ℓ-1): %v", err)
	}
	if _, err := ParseScalar(l[:31]); !errors.Is(err, ErrLength) {
		t.Errorf("ParseScalar(31 bytes): %v", err)
	}

	pm1 := append([]byte(nil), fieldP[:]...)
	pm1[0]--
	if _, err := ParseX25519(pm1); err != nil {
		t.Errorf("ParseX25519(p-1): %v", err)
	}
	topBit := make([]byte, 32)
	topBit[31] = 0x80
	for name, b := range map[string][]byte{"p": fieldP[:], "p+1": yP1, "top bit": topBit, "short": pm1[:5]} {
		if _, err := ParseX25519(b); err == nil {
			t.Errorf("ParseX25519(%s) accepted", name)
		}
	}

	ki := pointOf(edwards25519.NewGeneratorPoint())
	for _, ic := range []InputContext{CoinbaseInputContext(1<<64 - 1), RingCTInputContext(ki)} {
		if got, err := ParseInputContext(ic[:]); err != nil || got != ic {
			t.Errorf("ParseInputContext(%x): %v", ic, err)
		}
	}
	big := CoinbaseInputContext(1)
	big[9] = 1
	badKI := RingCTInputContext(Point(notOnCurve))
	other := CoinbaseInputContext(1)
	other[0] = 'X'
	for name, b := range map[string][]byte{"index above 2^64": big[:], "bad key image": badKI[:], "type X": other[:], "short": big[:32]} {
		if _, err := ParseInputContext(b); err == nil {
			t.Errorf("ParseInputContext(%s) accepted", name)
		}
	}
}

// TestX25519MatchesEdwards: for points of the prime-order subgroup, the
// ladder agrees with Edwards multiplication mapped to u.
func TestX25519MatchesEdwards(t *testing.T) {
	r := testRNG(t)
	for i := 0; i < 50; i++ {
		k, _ := edwards25519.NewScalar().SetUniformBytes(randBytes(r, 64))
		m, _ := edwards25519.NewScalar().SetUniformBytes(randBytes(r, 64))
		p := new(edwards25519.Point).ScalarBaseMult(m)
		want := montgomery(new(edwards25519.Point).ScalarMult(k, p))
		if got := x25519(k, montgomery(p)); got != want {
			t.Fatalf("ladder %s, Edwards %s", got, want)
		}
	}
	// u = 0 (the identity's image and a 2-torsion point) stays 0.
	k, _ := edwards25519.NewScalar().SetUniformBytes(randBytes(r, 64))
	if got := x25519(k, X25519{}); got != (X25519{}) {
		t.Fatalf("k·0 = %s", got)
	}
}

func FuzzParsePoint(f *testing.F) {
	f.Add(edwards25519.NewGeneratorPoint().Bytes())
	f.Add(fieldP[:])
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePoint(b)
		if err != nil {
			return
		}
		// What is accepted re-encodes to itself.
		q, err := p.point()
		if err != nil || !bytes.Equal(q.Bytes(), b) {
			t.Fatalf("accepted %x re-encodes as %x (%v)", b, q.Bytes(), err)
		}
		if _, err := ParseAddressPoint(b); err == nil && !bytes.Equal(p[:], b) {
			t.Fatal("ParseAddressPoint changed the bytes")
		}
	})
}

func FuzzParseScalar(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add(fromHex(f, "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseScalar(b)
		if err != nil {
			return
		}
		if Scalar(s.scalar().Bytes()) != s {
			t.Fatalf("accepted scalar %x is not canonical", b)
		}
	})
}

func FuzzParseX25519(f *testing.F) {
	f.Add(fieldP[:])
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := ParseX25519(b)
		if err != nil {
			return
		}
		// Canonical: the ladder by 1 returns the same bytes.
		if got := x25519(edwards25519.NewScalar().Set(scalarOne()), x); got != x {
			t.Fatalf("accepted %x, 1·u = %x", b, got)
		}
	})
}

func FuzzParseInputContext(f *testing.F) {
	ic := CoinbaseInputContext(7)
	f.Add(ic[:])
	ic = RingCTInputContext(pointOf(edwards25519.NewGeneratorPoint()))
	f.Add(ic[:])
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseInputContext(b)
		if err != nil {
			return
		}
		if !bytes.Equal(c[:], b) {
			t.Fatal("ParseInputContext changed the bytes")
		}
		if c[0] == 'C' && CoinbaseInputContext(leUint64(c[1:9])) != c {
			t.Fatalf("coinbase context %x is not one CoinbaseInputContext makes", b)
		}
	})
}

// FuzzScan: a scanner fed arbitrary enotes never panics, and what it
// accepts opens its own commitment.
func FuzzScan(f *testing.F) {
	acct := NewAccount([32]byte{1})
	sc := acct.Scanner(1, 2)
	p := Payment{Destination: acct.MainAddress(), Amount: 99, Randomness: [16]byte{2}}
	out, err := p.Enote(pointOf(edwards25519.NewGeneratorPoint()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encodeEnote(&out.Enote))
	f.Add(make([]byte, 155))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) != 155 {
			return
		}
		e := Enote{}
		copy(e.OnetimeAddress[:], b[0:32])
		copy(e.AmountCommitment[:], b[32:64])
		copy(e.EncryptedAmount[:], b[64:72])
		copy(e.EncryptedAnchor[:], b[72:88])
		copy(e.ViewTag[:], b[88:91])
		copy(e.EphemeralPubkey[:], b[91:123])
		copy(e.FirstKeyImage[:], b[123:155])
		got, err := sc.Scan(&e, nil)
		if err == nil && Commit(got.Amount, got.BlindingFactor) != e.AmountCommitment {
			t.Fatal("accepted enote whose commitment does not open")
		}
		c := CoinbaseEnote{OnetimeAddress: e.OnetimeAddress, Amount: leUint64(b[64:72]),
			EncryptedAnchor: e.EncryptedAnchor, ViewTag: e.ViewTag, EphemeralPubkey: e.EphemeralPubkey,
			BlockIndex: leUint64(b[123:131])}
		sc.ScanCoinbase(&c) //nolint:errcheck // only that it returns
	})
}

func encodeEnote(e *Enote) []byte {
	var b []byte
	b = append(b, e.OnetimeAddress[:]...)
	b = append(b, e.AmountCommitment[:]...)
	b = append(b, e.EncryptedAmount[:]...)
	b = append(b, e.EncryptedAnchor[:]...)
	b = append(b, e.ViewTag[:]...)
	b = append(b, e.EphemeralPubkey[:]...)
	return append(b, e.FirstKeyImage[:]...)
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func scalarOne() *edwards25519.Scalar {
	s, _ := edwards25519.NewScalar().SetCanonicalBytes(append([]byte{1}, make([]byte, 31)...))
	return s
}
