package carrot

import (
	"encoding/binary"
	"errors"
	"fmt"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
)

// The enote components (carrot-rs src/enote_components.rs), one function
// per formula.

// InputContext binds an enote to its transaction: "R" || first key image
// for a RingCT transaction, "C" || block index (little-endian, 256 bits)
// for a coinbase.
type InputContext [inputContextSize]byte

// CoinbaseInputContext is "C" || IntToBytes256(block index).
func CoinbaseInputContext(blockIndex uint64) InputContext {
	var ic InputContext
	ic[0] = inputContextCoinbase
	binary.LittleEndian.PutUint64(ic[1:], blockIndex)
	return ic
}

// RingCTInputContext is "R" || L_0, the transaction's first key image.
func RingCTInputContext(firstKeyImage Point) InputContext {
	var ic InputContext
	ic[0] = inputContextRingCT
	copy(ic[1:], firstKeyImage[:])
	return ic
}

// ErrInputContext: an input context that neither form produces.
var ErrInputContext = errors.New("carrot: malformed input context")

// ParseInputContext decodes an input context: "C" with a block index that
// fits 64 bits (the upper 24 bytes zero), or "R" with a canonical point.
func ParseInputContext(b []byte) (InputContext, error) {
	if len(b) != inputContextSize {
		return InputContext{}, fmt.Errorf("%w: input context of %d bytes, want %d", ErrLength, len(b), inputContextSize)
	}
	switch b[0] {
	case inputContextCoinbase:
		for _, c := range b[9:] {
			if c != 0 {
				return InputContext{}, fmt.Errorf("%w: coinbase block index above 2^64", ErrInputContext)
			}
		}
	case inputContextRingCT:
		if _, err := ParsePoint(b[1:]); err != nil {
			return InputContext{}, fmt.Errorf("%w: first key image: %v", ErrInputContext, err)
		}
	default:
		return InputContext{}, fmt.Errorf("%w: type byte %#x, want 'C' or 'R'", ErrInputContext, b[0])
	}
	return InputContext(b), nil
}

// EnoteType tells a payment from change; it enters the amount blinding
// factor, so the receiver learns it by trying both.
type EnoteType byte

// The enote types.
const (
	EnoteTypePayment EnoteType = EnoteType(enoteTypePayment)
	EnoteTypeChange  EnoteType = EnoteType(enoteTypeChange)
)

func (t EnoteType) String() string {
	switch t {
	case EnoteTypePayment:
		return "payment"
	case EnoteTypeChange:
		return "change"
	}
	return fmt.Sprintf("EnoteType(%d)", byte(t))
}

// EphemeralPrivkey is d_e = H_n(anchor_norm, input_context, K^j_s, pid),
// unkeyed: the sender's randomness is in the Janus anchor, which the
// receiver decrypts and so can recompute d_e (the Janus check).
func EphemeralPrivkey(anchor [16]byte, ic InputContext, spend Point, pid [8]byte) Scalar {
	return scalarOf(hashScalar(nil, dsEphemeralPrivkey, anchor[:], ic[:], spend[:], pid[:]))
}

// EphemeralPubkeyMain is D_e = d_e B (X25519 base point) for a main or
// integrated address.
func EphemeralPubkeyMain(de Scalar) X25519 {
	return montgomery(new(edwards25519.Point).ScalarBaseMult(de.scalar()))
}

// EphemeralPubkeySubaddress is D_e = ConvertPointE(d_e K^j_s).
func EphemeralPubkeySubaddress(de Scalar, spend Point) (X25519, error) {
	p, err := spend.point()
	if err != nil {
		return X25519{}, err
	}
	return montgomery(new(edwards25519.Point).ScalarMult(de.scalar(), p)), nil
}

// EphemeralPubkey picks the form for the address.
func EphemeralPubkey(de Scalar, spend Point, isSubaddress bool) (X25519, error) {
	if isSubaddress {
		return EphemeralPubkeySubaddress(de, spend)
	}
	return EphemeralPubkeyMain(de), nil
}

// ECDHReceiver is s_sr = k_v D_e.
func ECDHReceiver(kv Scalar, de X25519) X25519 { return x25519(kv.scalar(), de) }

// ECDHSender is s_sr = d_e ConvertPointE(K^j_v); it refuses a view pubkey
// off the curve or with torsion.
func ECDHSender(de Scalar, view Point) (X25519, error) {
	p, err := view.point()
	if err != nil {
		return X25519{}, err
	}
	if !crypto.IsInPrimeSubgroup(p) {
		return X25519{}, ErrTorsion
	}
	return x25519(de.scalar(), montgomery(p)), nil
}

// SenderReceiverSecret is s^ctx_sr = H_32[s_sr](D_e, input_context). For
// an internal enote the key is s_vb instead of s_sr.
func SenderReceiverSecret(ssrUnctx [32]byte, de X25519, ic InputContext) [32]byte {
	return hash32(ssrUnctx[:], dsSenderReceiverSecret, de[:], ic[:])
}

// AmountBlindingFactor is k_a = H_n[s^ctx_sr](a, K^j_s, enote_type).
func AmountBlindingFactor(ssr [32]byte, amount uint64, spend Point, t EnoteType) Scalar {
	return scalarOf(hashScalar(ssr[:], dsAmountBlindingFactor, u64le(amount), spend[:], []byte{byte(t)}))
}

// Commit is C_a = k_a G + a H.
func Commit(amount uint64, ka Scalar) Point {
	p := new(edwards25519.Point).ScalarBaseMult(ka.scalar())
	return pointOf(p.Add(p, crypto.ScalarMultH(amount)))
}

// ClearCommit is G + a H, the commitment of a coinbase amount.
func ClearCommit(amount uint64) Point { return Point(crypto.ZeroCommit(amount)) }

// OnetimeExtensionScalars returns (k^g_o, k^t_o) of a RingCT enote:
// H_n[s^ctx_sr]("..G..", C_a) and H_n[s^ctx_sr]("..T..", C_a).
func OnetimeExtensionScalars(ssr [32]byte, commitment Point) (Scalar, Scalar) {
	return scalarOf(hashScalar(ssr[:], dsOnetimeExtG, commitment[:])),
		scalarOf(hashScalar(ssr[:], dsOnetimeExtT, commitment[:]))
}

// CoinbaseOnetimeExtensionScalars returns (k^g_o, k^t_o) of a coinbase
// enote, keyed on the cleartext amount and the main spend pubkey instead of
// a commitment.
func CoinbaseOnetimeExtensionScalars(ssr [32]byte, amount uint64, mainSpend Point) (Scalar, Scalar) {
	return scalarOf(hashScalar(ssr[:], dsOnetimeExtGCoinbase, u64le(amount), mainSpend[:])),
		scalarOf(hashScalar(ssr[:], dsOnetimeExtTCoinbase, u64le(amount), mainSpend[:]))
}

// OnetimeExtension is K^o_ext = k^g_o G + k^t_o T.
func OnetimeExtension(g, t Scalar) Point { return pointOf(mulGT(g.scalar(), t.scalar())) }

// OnetimeAddress is K_o = K^j_s + K^o_ext.
func OnetimeAddress(spend, ext Point) (Point, error) {
	a, err := spend.point()
	if err != nil {
		return Point{}, err
	}
	b, err := ext.point()
	if err != nil {
		return Point{}, err
	}
	return pointOf(a.Add(a, b)), nil
}

// recoverSpend is K^j_s = K_o - K^o_ext, what the receiver looks up.
func recoverSpend(ko, ext Point) (Point, error) {
	a, err := ko.point()
	if err != nil {
		return Point{}, err
	}
	b, err := ext.point()
	if err != nil {
		return Point{}, err
	}
	return pointOf(a.Subtract(a, b)), nil
}

// ViewTag is vt = H_3[s_sr](input_context, K_o), keyed with the
// uncontextualised ECDH (s_vb for internal enotes): one hash, with no
// further scalar multiplication, rejects all but 1 in 2^24 foreign enotes.
func ViewTag(ssrUnctx [32]byte, ic InputContext, ko Point) [3]byte {
	return [3]byte(hashBytes(viewTagSize, ssrUnctx[:], dsViewTag, ic[:], ko[:]))
}

// AnchorMask is m_anchor = H_16[s^ctx_sr](K_o).
func AnchorMask(ssr [32]byte, ko Point) [16]byte {
	return [16]byte(hashBytes(janusAnchorSize, ssr[:], dsEncryptionMaskAnchor, ko[:]))
}

// AmountMask is m_a = H_8[s^ctx_sr](K_o).
func AmountMask(ssr [32]byte, ko Point) [8]byte {
	return [8]byte(hashBytes(encryptedAmountSize, ssr[:], dsEncryptionMaskAmount, ko[:]))
}

// PaymentIDMask is m_pid = H_8[s^ctx_sr](K_o).
func PaymentIDMask(ssr [32]byte, ko Point) [8]byte {
	return [8]byte(hashBytes(paymentIDSize, ssr[:], dsEncryptionMaskPID, ko[:]))
}

// JanusAnchorSpecial is anchor_sp = H_16[k_v](D_e, input_context, K_o), the
// anchor of a special (external self-send) enote, which only the view key
// holder can make or check.
func JanusAnchorSpecial(de X25519, ic InputContext, ko Point, kv Scalar) [16]byte {
	return [16]byte(hashBytes(janusAnchorSize, kv[:], dsJanusAnchorSpecial, de[:], ic[:], ko[:]))
}

func xor16(a, b [16]byte) (c [16]byte) {
	for i := range c {
		c[i] = a[i] ^ b[i]
	}
	return c
}

func xor8(a, b [8]byte) (c [8]byte) {
	for i := range c {
		c[i] = a[i] ^ b[i]
	}
	return c
}

// EncryptAmount is a_enc = a XOR m_a (a little-endian); it is its own
// inverse, DecryptAmount.
func EncryptAmount(amount uint64, ssr [32]byte, ko Point) [8]byte {
	return xor8([8]byte(u64le(amount)), AmountMask(ssr, ko))
}

// DecryptAmount is a = a_enc XOR m_a.
func DecryptAmount(enc [8]byte, ssr [32]byte, ko Point) uint64 {
	b := xor8(enc, AmountMask(ssr, ko))
	return binary.LittleEndian.Uint64(b[:])
}

// CryptPaymentID is pid XOR m_pid (encryption and decryption alike).
func CryptPaymentID(pid [8]byte, ssr [32]byte, ko Point) [8]byte {
	return xor8(pid, PaymentIDMask(ssr, ko))
}

// CryptAnchor is anchor XOR m_anchor (encryption and decryption alike).
func CryptAnchor(anchor [16]byte, ssr [32]byte, ko Point) [16]byte {
	return xor16(anchor, AnchorMask(ssr, ko))
}
