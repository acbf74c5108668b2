package carrot

import (
	"testing"

	"filippo.io/edwards25519"
)

// BenchmarkScan measures what a scanning node or wallet pays per output:
// a foreign enote (the common case: one X25519 ladder and the 3-byte view
// tag hash), an own payment (all the checks, Janus included), and the
// construction of a payment enote.
func BenchmarkScan(b *testing.B) {
	acct := NewAccount([32]byte{7})
	sc := acct.Scanner(1, 1)
	sub, _ := acct.Subaddress(0, 1)
	sc.Table[sub.SpendPub] = AddressIndex{0, 1}
	ki := pointOf(edwards25519.NewGeneratorPoint())
	own, err := (&Payment{Destination: sub, Amount: 5, Randomness: [16]byte{1}}).Enote(ki)
	if err != nil {
		b.Fatal(err)
	}
	other := NewAccount([32]byte{8})
	foreign, _ := (&Payment{Destination: other.MainAddress(), Amount: 5, Randomness: [16]byte{1}}).Enote(ki)
	b.Run("foreign", func(b *testing.B) {
		for b.Loop() {
			if _, err := sc.Scan(&foreign.Enote, nil); err == nil {
				b.Fatal("foreign enote accepted")
			}
		}
	})
	b.Run("own_subaddress", func(b *testing.B) {
		for b.Loop() {
			if _, err := sc.Scan(&own.Enote, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("construct", func(b *testing.B) {
		p := &Payment{Destination: sub, Amount: 5, Randomness: [16]byte{1}}
		for b.Loop() {
			if _, err := p.Enote(ki); err != nil {
				b.Fatal(err)
			}
		}
	})
}
