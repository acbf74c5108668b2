package carrot

import (
	"encoding/binary"
	"github.com/gonero/gonero/crypto/blake2bp"

	"filippo.io/edwards25519"
)

// personal is the BLAKE2b personalisation of every Carrot hash.
var personal = []byte("Monero")

// Domain separators (carrot-rs src/domain_separators.rs).
const (
	dsAmountBlindingFactor       = "Carrot commitment mask"
	dsOnetimeExtGCoinbase        = "Carrot coinbase extension G"
	dsOnetimeExtTCoinbase        = "Carrot coinbase extension T"
	dsOnetimeExtG                = "Carrot key extension G"
	dsOnetimeExtT                = "Carrot key extension T"
	dsEncryptionMaskAnchor       = "Carrot encryption mask anchor"
	dsEncryptionMaskAmount       = "Carrot encryption mask a"
	dsEncryptionMaskPID          = "Carrot encryption mask pid"
	dsJanusAnchorSpecial         = "Carrot janus anchor special"
	dsEphemeralPrivkey           = "Carrot sending key normal"
	dsViewTag                    = "Carrot view tag"
	dsSenderReceiverSecret       = "Carrot sender-receiver secret"
	dsProveSpendKey              = "Carrot prove-spend key"
	dsViewBalanceSecret          = "Carrot view-balance secret"
	dsGenerateImagePreimage      = "Carrot generate-image preimage secret"
	dsGenerateImageKey           = "Carrot generate-image key"
	dsIncomingViewKey            = "Carrot incoming view key"
	dsGenerateAddressSecret      = "Carrot generate-address secret"
	dsAddressIndexPreimage1      = "Carrot address index preimage 1"
	dsAddressIndexPreimage2      = "Carrot address index preimage 2"
	dsSubaddressScalar           = "Carrot subaddress scalar"
	inputContextCoinbase         = 'C'
	inputContextRingCT           = 'R'
	inputContextSize             = 1 + 32
	viewTagSize                  = 3
	janusAnchorSize              = 16
	encryptedAmountSize          = 8
	paymentIDSize                = 8
	enoteTypePayment        byte = 0
	enoteTypeChange         byte = 1
)

// transcript is Carrot's hash input: the domain separator's length as one
// byte, the separator, then each field's fixed-size encoding (integers
// little-endian), with no further framing: every field has a fixed size.
func transcript(ds string, fields ...[]byte) []byte {
	n := 1 + len(ds)
	for _, f := range fields {
		n += len(f)
	}
	t := make([]byte, 0, n)
	t = append(t, byte(len(ds)))
	t = append(t, ds...)
	for _, f := range fields {
		t = append(t, f...)
	}
	return t
}

func u32le(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64le(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// hashBytes is H_n[key](transcript): BLAKE2b-8n, keyed with the secret.
func hashBytes(n int, key []byte, ds string, fields ...[]byte) []byte {
	out := make([]byte, n)
	blake2bp.Sum(out, key, personal, transcript(ds, fields...))
	return out
}

func hash32(key []byte, ds string, fields ...[]byte) [32]byte {
	return [32]byte(hashBytes(32, key, ds, fields...))
}

// hashScalar is H_n: the 64-byte hash reduced modulo ℓ.
func hashScalar(key []byte, ds string, fields ...[]byte) *edwards25519.Scalar {
	s, err := edwards25519.NewScalar().SetUniformBytes(hashBytes(64, key, ds, fields...))
	if err != nil {
		panic(err) // 64 bytes always
	}
	return s
}
