package carrot

import (
	"testing"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
)

// TestAddressStrings: Carrot keeps CryptoNote's address strings (the same
// base58, prefixes and layout, spend key then view key), so the address
// package encodes a Carrot account's addresses; a payment to the parsed
// string is found by the account.
func TestAddressStrings(t *testing.T) {
	r := testRNG(t)
	acct := newTestAccount(r)
	sub, _ := acct.Subaddress(3, 9)
	sc := acct.Scanner(4, 10)
	for _, c := range []struct {
		a    Address
		kind address.Kind
		idx  AddressIndex
	}{
		{acct.MainAddress(), address.Standard, AddressIndex{}},
		{acct.IntegratedAddress([8]byte{0xde, 0xad}), address.Integrated, AddressIndex{}},
		{sub, address.Subaddress, AddressIndex{3, 9}},
	} {
		s := address.Address{Network: params.Mainnet, Kind: c.kind, Spend: cryptonote.Key(c.a.SpendPub),
			View: cryptonote.Key(c.a.ViewPub), PaymentID: c.a.PaymentID}.String()
		parsed, err := address.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		dest := Address{SpendPub: Point(parsed.Spend), ViewPub: Point(parsed.View),
			IsSubaddress: parsed.Kind == address.Subaddress, PaymentID: parsed.PaymentID}
		if dest != c.a {
			t.Fatalf("%s: parsed %+v, want %+v", c.kind, dest, c.a)
		}
		p := Payment{Destination: dest, Amount: 77, Randomness: [16]byte(randBytes(r, 16))}
		out, err := p.Enote(randKeyImage(r))
		if err != nil {
			t.Fatal(err)
		}
		got, err := sc.Scan(&out.Enote, &out.EncryptedPaymentID)
		if err != nil || got.Index != c.idx || got.PaymentID != c.a.PaymentID {
			t.Fatalf("%s: scanned %+v, %v", c.kind, got, err)
		}
	}
}
