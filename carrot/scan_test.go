package carrot

import (
	"errors"
	"math/rand/v2"
	"testing"

	"filippo.io/edwards25519"
)

// rng is deterministic, so a failure names the same enote on every run.
func testRNG(t *testing.T) *rand.ChaCha8 {
	var seed [32]byte
	copy(seed[:], t.Name())
	return rand.NewChaCha8(seed)
}

func randBytes(r *rand.ChaCha8, n int) []byte {
	b := make([]byte, n)
	r.Read(b)
	return b
}

// randKeyImage is a random prime-order point, standing in for a first key
// image.
func randKeyImage(r *rand.ChaCha8) Point {
	s, _ := edwards25519.NewScalar().SetUniformBytes(randBytes(r, 64))
	return pointOf(new(edwards25519.Point).ScalarBaseMult(s))
}

func newTestAccount(r *rand.ChaCha8) *Account { return NewAccount([32]byte(randBytes(r, 32))) }

func checkReceived(t *testing.T, got Received, idx AddressIndex, amount uint64, typ EnoteType, out *Output) {
	t.Helper()
	if got.Index != idx || got.Amount != amount || got.Type != typ {
		t.Fatalf("scanned index %v amount %d type %v, want %v %d %v", got.Index, got.Amount, got.Type, idx, amount, typ)
	}
	if out != nil && (got.BlindingFactor != out.BlindingFactor || Commit(got.Amount, got.BlindingFactor) != out.Enote.AmountCommitment) {
		t.Fatalf("blinding factor %s, sender's %s", got.BlindingFactor, out.BlindingFactor)
	}
}

// checkSpendable checks that K_o = K^j_s + k^g_o G + k^t_o T with the
// recovered extension: the receiver can open the one-time address.
func checkSpendable(t *testing.T, got Received, ko Point) {
	t.Helper()
	p, err := OnetimeAddress(got.SpendPub, OnetimeExtension(got.ExtensionG, got.ExtensionT))
	if err != nil || p != ko {
		t.Fatalf("K^j_s + extension = %s (%v), K_o %s", p, err, ko)
	}
}

func TestRoundTripPayments(t *testing.T) {
	r := testRNG(t)
	acct := newTestAccount(r)
	sc := acct.Scanner(3, 20)
	other := newTestAccount(r).Scanner(3, 20)
	sub, err := acct.Subaddress(2, 17)
	if err != nil {
		t.Fatal(err)
	}
	pid := [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	cases := []struct {
		name string
		addr Address
		idx  AddressIndex
		pid  [8]byte
	}{
		{"main", acct.MainAddress(), AddressIndex{}, [8]byte{}},
		{"integrated", acct.IntegratedAddress(pid), AddressIndex{}, pid},
		{"subaddress", sub, AddressIndex{2, 17}, [8]byte{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i := 0; i < 8; i++ {
				amount := r.Uint64() >> uint(i*8)
				p := Payment{Destination: c.addr, Amount: amount, Randomness: [16]byte(randBytes(r, 16))}
				out, err := p.Enote(randKeyImage(r))
				if err != nil {
					t.Fatal(err)
				}
				got, err := sc.Scan(&out.Enote, &out.EncryptedPaymentID)
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				checkReceived(t, got, c.idx, amount, EnoteTypePayment, &out)
				checkSpendable(t, got, out.Enote.OnetimeAddress)
				if got.PaymentID != c.pid || got.Internal || got.Special {
					t.Fatalf("pid %x internal %v special %v, want pid %x", got.PaymentID, got.Internal, got.Special, c.pid)
				}
				// Without the encrypted payment ID the enote is still ours
				// (the Janus check retries with no payment ID) only when it
				// had none.
				_, err = sc.Scan(&out.Enote, nil)
				if (c.pid == [8]byte{}) != (err == nil) {
					t.Fatalf("scan without pid_enc: %v", err)
				}
				if _, err := other.Scan(&out.Enote, &out.EncryptedPaymentID); !errors.Is(err, ErrViewTag) {
					t.Fatalf("another account: %v, want %v", err, ErrViewTag)
				}
			}
		})
	}
}

// TestSubaddressOutsideTable: an enote to a subaddress the scanner does not
// look for passes the view tag (it is keyed on k_v alone) but is not
// recognised.
func TestSubaddressOutsideTable(t *testing.T) {
	r := testRNG(t)
	acct := newTestAccount(r)
	sub, _ := acct.Subaddress(7, 7)
	p := Payment{Destination: sub, Amount: 5, Randomness: [16]byte(randBytes(r, 16))}
	out, err := p.Enote(randKeyImage(r))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acct.Scanner(2, 2).Scan(&out.Enote, nil); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("got %v, want %v", err, ErrNotOurs)
	}
	if got, err := acct.Scanner(8, 8).Scan(&out.Enote, nil); err != nil || got.Index != (AddressIndex{7, 7}) {
		t.Fatalf("got %v %v", got.Index, err)
	}
}

func TestRoundTripSelfSends(t *testing.T) {
	r := testRNG(t)
	acct := newTestAccount(r)
	sc := acct.Scanner(2, 5)
	sub, _ := acct.Subaddress(1, 4)
	// A view-incoming-only scanner finds special enotes, not internal ones.
	viewOnly := &Scanner{ViewIncoming: acct.ViewIncoming, Table: sc.Table}
	for _, typ := range []EnoteType{EnoteTypeChange, EnoteTypePayment} {
		for _, dest := range []struct {
			spend Point
			idx   AddressIndex
		}{{acct.SpendPub, AddressIndex{}}, {sub.SpendPub, AddressIndex{1, 4}}} {
			// D_e of the transaction's other (outgoing) output.
			de := EphemeralPubkeyMain(scalarOf(hashScalar(randBytes(r, 32), "test")))
			msg := [16]byte(randBytes(r, 16))
			s := SelfSend{SpendPub: dest.spend, Amount: r.Uint64(), Type: typ, EphemeralPubkey: de, InternalMessage: msg}
			ki := randKeyImage(r)
			out, err := acct.InternalEnote(s, ki)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sc.Scan(&out.Enote, nil)
			if err != nil {
				t.Fatalf("internal %v: %v", typ, err)
			}
			checkReceived(t, got, dest.idx, s.Amount, typ, &out)
			checkSpendable(t, got, out.Enote.OnetimeAddress)
			if !got.Internal || got.InternalMessage != msg {
				t.Fatalf("internal %v message %x, want true %x", got.Internal, got.InternalMessage, msg)
			}
			if _, err := viewOnly.Scan(&out.Enote, nil); err == nil {
				t.Fatal("a view-incoming-only scanner found an internal enote")
			}

			if _, err := acct.SpecialEnote(s, ki); !errors.Is(err, ErrSpecialMessage) {
				t.Fatalf("special with message: %v", err)
			}
			s.InternalMessage = [16]byte{}
			out, err = acct.SpecialEnote(s, ki)
			if err != nil {
				t.Fatal(err)
			}
			for _, scn := range []*Scanner{sc, viewOnly} {
				got, err = scn.Scan(&out.Enote, nil)
				if err != nil {
					t.Fatalf("special %v: %v", typ, err)
				}
				checkReceived(t, got, dest.idx, s.Amount, typ, &out)
				checkSpendable(t, got, out.Enote.OnetimeAddress)
				if !got.Special || got.Internal {
					t.Fatalf("special %v internal %v", got.Special, got.Internal)
				}
			}
		}
	}
}

func TestRoundTripCoinbase(t *testing.T) {
	r := testRNG(t)
	acct := newTestAccount(r)
	sc := acct.Scanner(2, 2)
	for _, height := range []uint64{0, 1, 3_000_000, 1<<64 - 1} {
		amount := r.Uint64() >> 4
		p := Payment{Destination: acct.MainAddress(), Amount: amount, Randomness: [16]byte(randBytes(r, 16))}
		e, err := p.CoinbaseEnote(height)
		if err != nil {
			t.Fatal(err)
		}
		// The ephemeral key is deterministic in (randomness, height, K^0_s).
		e2, _ := p.CoinbaseEnote(height)
		if e2 != e {
			t.Fatal("coinbase enote not deterministic")
		}
		got, err := sc.ScanCoinbase(&e)
		if err != nil {
			t.Fatalf("height %d: %v", height, err)
		}
		checkReceived(t, got, AddressIndex{}, amount, EnoteTypePayment, nil)
		checkSpendable(t, got, e.OnetimeAddress)
		if Commit(amount, got.BlindingFactor) != ClearCommit(amount) {
			t.Fatal("coinbase blinding factor is not 1")
		}
		if _, err := newTestAccount(r).Scanner(1, 1).ScanCoinbase(&e); !errors.Is(err, ErrViewTag) {
			t.Fatalf("another account: %v", err)
		}
		// The same enote at another height is not ours.
		moved := e
		moved.BlockIndex ^= 1
		if _, err := sc.ScanCoinbase(&moved); err == nil {
			t.Fatal("coinbase enote scanned at another height")
		}
	}
	sub, _ := acct.Subaddress(0, 1)
	for _, a := range []Address{sub, acct.IntegratedAddress([8]byte{9})} {
		p := Payment{Destination: a, Amount: 1, Randomness: [16]byte{1}}
		if _, err := p.CoinbaseEnote(1); !errors.Is(err, ErrCoinbaseAddress) {
			t.Fatalf("coinbase to %+v: %v", a, err)
		}
	}
	p := Payment{Destination: acct.MainAddress(), Amount: 1}
	if _, err := p.CoinbaseEnote(1); !errors.Is(err, ErrNoRandomness) {
		t.Fatalf("no randomness: %v", err)
	}
	if _, err := p.Enote(randKeyImage(r)); !errors.Is(err, ErrNoRandomness) {
		t.Fatalf("no randomness: %v", err)
	}
}

// TestTamperedEnotes: any field of an enote changed, and the scanner
// refuses it.
func TestTamperedEnotes(t *testing.T) {
	r := testRNG(t)
	acct := newTestAccount(r)
	sc := acct.Scanner(2, 3)
	sub, _ := acct.Subaddress(1, 2)
	for _, addr := range []Address{acct.MainAddress(), sub} {
		p := Payment{Destination: addr, Amount: 123456789, Randomness: [16]byte(randBytes(r, 16))}
		out, err := p.Enote(randKeyImage(r))
		if err != nil {
			t.Fatal(err)
		}
		tampers := map[string]func(e *Enote){
			"onetime address":   func(e *Enote) { e.OnetimeAddress = randKeyImage(r) },
			"amount commitment": func(e *Enote) { e.AmountCommitment = randKeyImage(r) },
			"encrypted amount":  func(e *Enote) { e.EncryptedAmount[0] ^= 1 },
			"encrypted anchor":  func(e *Enote) { e.EncryptedAnchor[15] ^= 0x80 },
			"view tag":          func(e *Enote) { e.ViewTag[2] ^= 1 },
			"ephemeral pubkey":  func(e *Enote) { e.EphemeralPubkey[0] ^= 1 },
			"first key image":   func(e *Enote) { e.FirstKeyImage = randKeyImage(r) },
		}
		for name, f := range tampers {
			e := out.Enote
			f(&e)
			if got, err := sc.Scan(&e, &out.EncryptedPaymentID); err == nil {
				t.Errorf("%v: tampered %s scanned: %+v", addr.IsSubaddress, name, got)
			}
		}
		if _, err := sc.Scan(&out.Enote, &out.EncryptedPaymentID); err != nil {
			t.Fatal(err)
		}
	}
	// A coinbase's amount is in the clear: changing it changes the
	// extension, and the recovered spend pubkey is no longer ours.
	p := Payment{Destination: acct.MainAddress(), Amount: 600_000_000_000, Randomness: [16]byte(randBytes(r, 16))}
	e, _ := p.CoinbaseEnote(42)
	for name, f := range map[string]func(e *CoinbaseEnote){
		"amount":           func(e *CoinbaseEnote) { e.Amount++ },
		"onetime address":  func(e *CoinbaseEnote) { e.OnetimeAddress = randKeyImage(r) },
		"encrypted anchor": func(e *CoinbaseEnote) { e.EncryptedAnchor[0] ^= 1 },
		"view tag":         func(e *CoinbaseEnote) { e.ViewTag[0] ^= 1 },
	} {
		c := e
		f(&c)
		if _, err := sc.ScanCoinbase(&c); err == nil {
			t.Errorf("tampered coinbase %s scanned", name)
		}
	}
}

// TestJanusAttack: an attacker who knows two of our addresses A and B
// builds an enote whose ECDH goes through A (D_e = r K^A_s, s_sr = r K^A_v)
// but whose one-time address pays B. Without the Janus check the receiver
// would credit B and so learn that whoever was given A also knows B: the
// anchor does not regenerate D_e for B, and the scanner refuses it.
func TestJanusAttack(t *testing.T) {
	r := testRNG(t)
	acct := newTestAccount(r)
	sc := acct.Scanner(2, 4)
	a, _ := acct.Subaddress(1, 1)
	b, _ := acct.Subaddress(1, 3)
	for _, victim := range []Address{b, acct.MainAddress()} {
		ki := randKeyImage(r)
		ic := RingCTInputContext(ki)
		anchor := [16]byte(randBytes(r, 16))
		de := EphemeralPrivkey(anchor, ic, victim.SpendPub, [8]byte{})
		dpub, err := EphemeralPubkeySubaddress(de, a.SpendPub)
		if err != nil {
			t.Fatal(err)
		}
		ssrU, err := ECDHSender(de, a.ViewPub)
		if err != nil {
			t.Fatal(err)
		}
		ssr := SenderReceiverSecret(ssrU, dpub, ic)
		ka, ca, ko, aenc, _, err := parts(ssr, victim.SpendPub, [8]byte{}, 1000, EnoteTypePayment)
		if err != nil {
			t.Fatal(err)
		}
		_ = ka
		e := Enote{OnetimeAddress: ko, AmountCommitment: ca, EncryptedAmount: aenc,
			EncryptedAnchor: CryptAnchor(anchor, ssr, ko), ViewTag: ViewTag(ssrU, ic, ko),
			EphemeralPubkey: dpub, FirstKeyImage: ki}
		if _, err := sc.Scan(&e, nil); !errors.Is(err, ErrJanus) {
			t.Fatalf("Janus enote to %v: %v, want %v", victim.IsSubaddress, err, ErrJanus)
		}
	}
}

// TestSenderRefusesTorsion: the sender's ECDH refuses a view pubkey with a
// torsion component, which would let the receiver learn d_e mod 8.
func TestSenderRefusesTorsion(t *testing.T) {
	r := testRNG(t)
	acct := newTestAccount(r)
	addr := acct.MainAddress()
	// A point of order 8: the torsion component added to K^0_v.
	t8 := fromHex(t, "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
	tp, err := new(edwards25519.Point).SetBytes(t8)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := addr.ViewPub.point()
	addr.ViewPub = pointOf(v.Add(v, tp))
	p := Payment{Destination: addr, Amount: 1, Randomness: [16]byte{1}}
	if _, err := p.Enote(randKeyImage(r)); !errors.Is(err, ErrBadAddress) {
		t.Fatalf("torsioned view pubkey: %v", err)
	}
	if _, err := ParseAddressPoint(addr.ViewPub[:]); !errors.Is(err, ErrTorsion) {
		t.Fatalf("ParseAddressPoint: %v", err)
	}
}
