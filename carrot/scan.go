package carrot

import (
	"errors"
)

// Scanning (carrot-rs src/scan.rs, scan_unsafe.rs).

// Scanner recognises the enotes of one account. ViewIncoming alone finds
// payments, special self-sends and coinbases; ViewBalance (optional) also
// finds internal self-sends.
type Scanner struct {
	ViewIncoming Scalar    // k_v
	ViewBalance  *[32]byte // s_vb, nil for a view-incoming-only wallet
	// Table maps the spend pubkeys to look for to their index; (0, 0) marks
	// the main address, the only one a coinbase pays.
	Table SubaddressTable
}

// Scanner returns a full-view scanner over the main address and the
// subaddresses major < majors, minor < minors.
func (a *Account) Scanner(majors, minors uint32) *Scanner {
	svb := a.ViewBalance
	return &Scanner{ViewIncoming: a.ViewIncoming, ViewBalance: &svb, Table: a.SubaddressTable(majors, minors)}
}

// Received is what scanning learns of an enote of ours.
type Received struct {
	Index          AddressIndex
	SpendPub       Point // K^j_s
	Amount         uint64
	BlindingFactor Scalar // k_a (1 for a coinbase)
	PaymentID      [8]byte
	Type           EnoteType
	// ExtensionG and ExtensionT are k^g_o and k^t_o: K_o = K^j_s +
	// k^g_o G + k^t_o T, what spending the enote needs.
	ExtensionG, ExtensionT Scalar
	Internal               bool     // found with s_vb (internal self-send)
	Special                bool     // external self-send, its special Janus anchor checked
	InternalMessage        [16]byte // the anchor of an internal enote
}

// Scan failures. ErrViewTag is the common case, a foreign enote; the
// others mean the view tag matched but the enote is not (wholly) ours or
// was tampered with.
var (
	ErrViewTag    = errors.New("carrot: view tag does not match")
	ErrNotOurs    = errors.New("carrot: view tag matches but the spend pubkey is not ours")
	ErrCommitment = errors.New("carrot: the amount commitment does not open to the decrypted amount")
	ErrJanus      = errors.New("carrot: Janus check failed: the ephemeral pubkey is not the anchor's")
)

// Scan tries an enote as an external enote (payment or special
// self-send), then, with a view-balance secret, as an internal one.
// encPID is the transaction's encrypted payment ID, or nil.
func (s *Scanner) Scan(e *Enote, encPID *[8]byte) (Received, error) {
	r, err := s.scanExternal(e, encPID)
	if err == nil || s.ViewBalance == nil {
		return r, err
	}
	ri, erri := s.scanInternal(e)
	if erri == nil {
		return ri, nil
	}
	if err == ErrViewTag {
		return Received{}, erri // the external tag missed: the internal try says more
	}
	return Received{}, err
}

// destInfo recovers K^j_s from K_o and opens the amount.
func (s *Scanner) destInfo(e *Enote, ssr [32]byte) (Received, error) {
	g, t := OnetimeExtensionScalars(ssr, e.AmountCommitment)
	spend, err := recoverSpend(e.OnetimeAddress, OnetimeExtension(g, t))
	if err != nil {
		return Received{}, err
	}
	idx, ok := s.Table[spend]
	if !ok {
		return Received{}, ErrNotOurs
	}
	amount := DecryptAmount(e.EncryptedAmount, ssr, e.OnetimeAddress)
	for _, typ := range []EnoteType{EnoteTypePayment, EnoteTypeChange} {
		ka := AmountBlindingFactor(ssr, amount, spend, typ)
		if Commit(amount, ka) == e.AmountCommitment {
			return Received{Index: idx, SpendPub: spend, Amount: amount, BlindingFactor: ka, Type: typ, ExtensionG: g, ExtensionT: t}, nil
		}
	}
	return Received{}, ErrCommitment
}

func (s *Scanner) scanExternal(e *Enote, encPID *[8]byte) (Received, error) {
	ic := RingCTInputContext(e.FirstKeyImage)
	ssrU := ECDHReceiver(s.ViewIncoming, e.EphemeralPubkey)
	if ViewTag(ssrU, ic, e.OnetimeAddress) != e.ViewTag {
		return Received{}, ErrViewTag
	}
	ssr := SenderReceiverSecret(ssrU, e.EphemeralPubkey, ic)
	r, err := s.destInfo(e, ssr)
	if err != nil {
		return Received{}, err
	}
	anchor := CryptAnchor(e.EncryptedAnchor, ssr, e.OnetimeAddress)
	isSub := r.Index != (AddressIndex{})
	// Normal Janus check: the anchor must regenerate D_e for this address,
	// with the decrypted payment ID, else with none (pid_enc may be a dummy).
	if encPID != nil {
		pid := CryptPaymentID(*encPID, ssr, e.OnetimeAddress)
		if janusNormal(anchor, ic, r.SpendPub, isSub, pid, e.EphemeralPubkey) {
			r.PaymentID = pid
			return r, nil
		}
	}
	if janusNormal(anchor, ic, r.SpendPub, isSub, [8]byte{}, e.EphemeralPubkey) {
		return r, nil
	}
	// Special Janus check: an external self-send's anchor is keyed on k_v.
	if anchor == JanusAnchorSpecial(e.EphemeralPubkey, ic, e.OnetimeAddress, s.ViewIncoming) {
		r.Special = true
		return r, nil
	}
	return Received{}, ErrJanus
}

// janusNormal recomputes d_e from the decrypted anchor and checks that it
// gives D_e: an attacker who made D_e for another of our addresses (to
// learn that two addresses are one wallet's) cannot pass it.
func janusNormal(anchor [16]byte, ic InputContext, spend Point, isSub bool, pid [8]byte, dpub X25519) bool {
	de := EphemeralPrivkey(anchor, ic, spend, pid)
	d, err := EphemeralPubkey(de, spend, isSub)
	return err == nil && d == dpub
}

func (s *Scanner) scanInternal(e *Enote) (Received, error) {
	ic := RingCTInputContext(e.FirstKeyImage)
	if ViewTag(*s.ViewBalance, ic, e.OnetimeAddress) != e.ViewTag {
		return Received{}, ErrViewTag
	}
	ssr := SenderReceiverSecret(*s.ViewBalance, e.EphemeralPubkey, ic)
	r, err := s.destInfo(e, ssr)
	if err != nil {
		return Received{}, err
	}
	// No Janus check: only the s_vb holder can key an internal enote.
	r.Internal = true
	r.InternalMessage = CryptAnchor(e.EncryptedAnchor, ssr, e.OnetimeAddress)
	return r, nil
}

// ScanCoinbase recognises a coinbase enote paid to one of the table's main
// addresses (index (0, 0)).
func (s *Scanner) ScanCoinbase(e *CoinbaseEnote) (Received, error) {
	ic := CoinbaseInputContext(e.BlockIndex)
	ssrU := ECDHReceiver(s.ViewIncoming, e.EphemeralPubkey)
	if ViewTag(ssrU, ic, e.OnetimeAddress) != e.ViewTag {
		return Received{}, ErrViewTag
	}
	ssr := SenderReceiverSecret(ssrU, e.EphemeralPubkey, ic)
	for spend, idx := range s.Table {
		if idx != (AddressIndex{}) {
			continue
		}
		g, t := CoinbaseOnetimeExtensionScalars(ssr, e.Amount, spend)
		rec, err := recoverSpend(e.OnetimeAddress, OnetimeExtension(g, t))
		if err != nil {
			return Received{}, err
		}
		if rec != spend {
			continue
		}
		anchor := CryptAnchor(e.EncryptedAnchor, ssr, e.OnetimeAddress)
		if !janusNormal(anchor, ic, spend, false, [8]byte{}, e.EphemeralPubkey) {
			return Received{}, ErrJanus
		}
		return Received{
			SpendPub: spend, Amount: e.Amount, BlindingFactor: Scalar{1},
			Type: EnoteTypePayment, ExtensionG: g, ExtensionT: t,
		}, nil
	}
	return Received{}, ErrNotOurs
}
