package carrot

import (
	"errors"
	"fmt"
)

// Enote construction (carrot-rs src/payments.rs).

// Enote is a RingCT (non-coinbase) Carrot enote: what a transaction output
// carries, with the first key image of its transaction.
type Enote struct {
	OnetimeAddress   Point    // K_o
	AmountCommitment Point    // C_a
	EncryptedAmount  [8]byte  // a_enc
	EncryptedAnchor  [16]byte // anchor_enc
	ViewTag          [3]byte  // vt
	EphemeralPubkey  X25519   // D_e
	FirstKeyImage    Point    // L_0
}

// CoinbaseEnote is a coinbase Carrot enote: the amount is in the clear
// (its commitment is G + a H) and the block index stands for the key image.
type CoinbaseEnote struct {
	OnetimeAddress  Point    // K_o
	Amount          uint64   // a
	EncryptedAnchor [16]byte // anchor_enc
	ViewTag         [3]byte  // vt
	EphemeralPubkey X25519   // D_e
	BlockIndex      uint64
}

// Payment is a payment to someone's address: what the sender knows.
type Payment struct {
	Destination Address
	Amount      uint64
	// Randomness is anchor_norm, 16 secret random bytes; d_e derives from
	// it, and the receiver, who decrypts it, recomputes D_e from it (Janus
	// protection). Zero is refused, as the reference does.
	Randomness [16]byte
}

// Output is a constructed enote with its opening, which the sender needs
// for the range proof.
type Output struct {
	Enote              Enote
	EncryptedPaymentID [8]byte // pid_enc, for the transaction's extra
	Amount             uint64
	BlindingFactor     Scalar // k_a
}

// Construction errors.
var (
	ErrNoRandomness    = errors.New("carrot: payment has no randomness (anchor_norm is zero)")
	ErrCoinbaseAddress = errors.New("carrot: a coinbase pays a main address without payment ID")
	ErrBadAddress      = errors.New("carrot: address points are invalid or have torsion")
)

// ecdhParts is d_e, D_e and s_sr for a normal payment.
func (p *Payment) ecdhParts(ic InputContext) (X25519, X25519, error) {
	d := &p.Destination
	de := EphemeralPrivkey(p.Randomness, ic, d.SpendPub, d.PaymentID)
	dpub, err := EphemeralPubkey(de, d.SpendPub, d.IsSubaddress)
	if err != nil {
		return X25519{}, X25519{}, fmt.Errorf("%w: %v", ErrBadAddress, err)
	}
	ssr, err := ECDHSender(de, d.ViewPub)
	if err != nil {
		return X25519{}, X25519{}, fmt.Errorf("%w: %v", ErrBadAddress, err)
	}
	return dpub, ssr, nil
}

// parts is what every non-coinbase enote shares once s^ctx_sr is known:
// k_a, C_a, K_o, a_enc, pid_enc.
func parts(ssr [32]byte, spend Point, pid [8]byte, amount uint64, t EnoteType) (Scalar, Point, Point, [8]byte, [8]byte, error) {
	ka := AmountBlindingFactor(ssr, amount, spend, t)
	ca := Commit(amount, ka)
	g, tt := OnetimeExtensionScalars(ssr, ca)
	ko, err := OnetimeAddress(spend, OnetimeExtension(g, tt))
	if err != nil {
		return Scalar{}, Point{}, Point{}, [8]byte{}, [8]byte{}, fmt.Errorf("%w: %v", ErrBadAddress, err)
	}
	return ka, ca, ko, EncryptAmount(amount, ssr, ko), CryptPaymentID(pid, ssr, ko), nil
}

// Enote makes the enote of a normal payment in a transaction whose first
// key image is firstKeyImage.
func (p *Payment) Enote(firstKeyImage Point) (Output, error) {
	if p.Randomness == ([16]byte{}) {
		return Output{}, ErrNoRandomness
	}
	ic := RingCTInputContext(firstKeyImage)
	dpub, ssrU, err := p.ecdhParts(ic)
	if err != nil {
		return Output{}, err
	}
	ssr := SenderReceiverSecret(ssrU, dpub, ic)
	ka, ca, ko, aenc, pidEnc, err := parts(ssr, p.Destination.SpendPub, p.Destination.PaymentID, p.Amount, EnoteTypePayment)
	if err != nil {
		return Output{}, err
	}
	return Output{
		Enote: Enote{
			OnetimeAddress:   ko,
			AmountCommitment: ca,
			EncryptedAmount:  aenc,
			EncryptedAnchor:  CryptAnchor(p.Randomness, ssr, ko),
			ViewTag:          ViewTag(ssrU, ic, ko),
			EphemeralPubkey:  dpub,
			FirstKeyImage:    firstKeyImage,
		},
		EncryptedPaymentID: pidEnc,
		Amount:             p.Amount,
		BlindingFactor:     ka,
	}, nil
}

// CoinbaseEnote makes the enote a miner pays itself (or a pool pays a
// miner) with in block blockIndex. The ephemeral key is deterministic in
// (randomness, block index, K^0_s): the randomness must still be fresh, as
// for any payment, or two coinbases of one height to one address would
// share D_e. The address must be a main address without payment ID: the
// coinbase scanner tries main spend pubkeys only.
func (p *Payment) CoinbaseEnote(blockIndex uint64) (CoinbaseEnote, error) {
	if p.Randomness == ([16]byte{}) {
		return CoinbaseEnote{}, ErrNoRandomness
	}
	if p.Destination.IsSubaddress || p.Destination.PaymentID != ([8]byte{}) {
		return CoinbaseEnote{}, ErrCoinbaseAddress
	}
	ic := CoinbaseInputContext(blockIndex)
	dpub, ssrU, err := p.ecdhParts(ic)
	if err != nil {
		return CoinbaseEnote{}, err
	}
	ssr := SenderReceiverSecret(ssrU, dpub, ic)
	g, t := CoinbaseOnetimeExtensionScalars(ssr, p.Amount, p.Destination.SpendPub)
	ko, err := OnetimeAddress(p.Destination.SpendPub, OnetimeExtension(g, t))
	if err != nil {
		return CoinbaseEnote{}, fmt.Errorf("%w: %v", ErrBadAddress, err)
	}
	return CoinbaseEnote{
		OnetimeAddress:  ko,
		Amount:          p.Amount,
		EncryptedAnchor: CryptAnchor(p.Randomness, ssr, ko),
		ViewTag:         ViewTag(ssrU, ic, ko),
		EphemeralPubkey: dpub,
		BlockIndex:      blockIndex,
	}, nil
}

// SelfSend is an output to one of the sender's own addresses (change, or
// a self-payment). It reuses an ephemeral pubkey of the transaction: in a
// two-output transaction both outputs share one D_e.
type SelfSend struct {
	SpendPub        Point // K^j_s, one of the account's own
	Amount          uint64
	Type            EnoteType
	EphemeralPubkey X25519
	// InternalMessage is the 16 bytes an internal enote carries in its
	// anchor (zero when none); a special enote carries its Janus anchor.
	InternalMessage [16]byte
}

// InternalEnote makes an internal self-send enote: keyed on the
// view-balance secret s_vb instead of an ECDH, so that only the view-balance
// holder finds it, with no Janus anchor to check.
func (a *Account) InternalEnote(s SelfSend, firstKeyImage Point) (Output, error) {
	ic := RingCTInputContext(firstKeyImage)
	ssr := SenderReceiverSecret(a.ViewBalance, s.EphemeralPubkey, ic)
	ka, ca, ko, aenc, _, err := parts(ssr, s.SpendPub, [8]byte{}, s.Amount, s.Type)
	if err != nil {
		return Output{}, err
	}
	return Output{
		Enote: Enote{
			OnetimeAddress:   ko,
			AmountCommitment: ca,
			EncryptedAmount:  aenc,
			EncryptedAnchor:  CryptAnchor(s.InternalMessage, ssr, ko),
			ViewTag:          ViewTag(a.ViewBalance, ic, ko),
			EphemeralPubkey:  s.EphemeralPubkey,
			FirstKeyImage:    firstKeyImage,
		},
		Amount:         s.Amount,
		BlindingFactor: ka,
	}, nil
}

// ErrSpecialMessage: a special enote's anchor is its Janus anchor.
var ErrSpecialMessage = errors.New("carrot: a special self-send carries no internal message")

// SpecialEnote makes an external self-send ("special") enote: keyed on the
// ECDH k_v D_e like a payment, which view-incoming-only wallets can find,
// with the special Janus anchor H_16[k_v](D_e, input_context, K_o).
func (a *Account) SpecialEnote(s SelfSend, firstKeyImage Point) (Output, error) {
	if s.InternalMessage != ([16]byte{}) {
		return Output{}, ErrSpecialMessage
	}
	ic := RingCTInputContext(firstKeyImage)
	ssrU := ECDHReceiver(a.ViewIncoming, s.EphemeralPubkey)
	ssr := SenderReceiverSecret(ssrU, s.EphemeralPubkey, ic)
	ka, ca, ko, aenc, _, err := parts(ssr, s.SpendPub, [8]byte{}, s.Amount, s.Type)
	if err != nil {
		return Output{}, err
	}
	anchor := JanusAnchorSpecial(s.EphemeralPubkey, ic, ko, a.ViewIncoming)
	return Output{
		Enote: Enote{
			OnetimeAddress:   ko,
			AmountCommitment: ca,
			EncryptedAmount:  aenc,
			EncryptedAnchor:  CryptAnchor(anchor, ssr, ko),
			ViewTag:          ViewTag(ssrU, ic, ko),
			EphemeralPubkey:  s.EphemeralPubkey,
			FirstKeyImage:    firstKeyImage,
		},
		Amount:         s.Amount,
		BlindingFactor: ka,
	}, nil
}
